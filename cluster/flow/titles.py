"""Step titles that name what really happened, where the course's catalogue speaks in general:
step 4 names the event etcd sent (ADDED, MODIFIED, DELETED), step 6 the controller that acted.

Every function returns (english, chinese).
"""

from __future__ import annotations

# etcd's event types, and the course's word for each (the catalogue's "Create event").
_EVENTS = {
    "ADDED": ("etcd sends a Create event (ADDED)", "etcd 发送 Create 事件（ADDED）"),
    "MODIFIED": ("etcd sends an Update event (MODIFIED)", "etcd 发送 Update 事件（MODIFIED）"),
    "DELETED": ("etcd sends a Delete event (DELETED)", "etcd 发送 Delete 事件（DELETED）"),
}

# What each controller does at step 6.
_CONTROLLERS = {
    "ReplicationController": (
        "The Replication Controller creates replicas",
        "Replication Controller 创建副本",
    ),
    "ReplicaSet": ("The ReplicaSet controller creates replicas", "ReplicaSet 控制器创建副本"),
    "Deployment": (
        "The Deployment controller creates or scales its ReplicaSet",
        "Deployment 控制器创建或伸缩它的 ReplicaSet",
    ),
    "DaemonSet": ("The DaemonSet controller creates a pod per node", "DaemonSet 控制器为每个节点创建 Pod"),
    "StatefulSet": ("The StatefulSet controller creates pods in order", "StatefulSet 控制器按序创建 Pod"),
    "Job": ("The Job controller creates pods", "Job 控制器创建 Pod"),
    "CronJob": ("The CronJob controller creates a Job", "CronJob 控制器创建 Job"),
}


def event_sent(event_type: str) -> tuple[str, str] | None:
    return _EVENTS.get(event_type)


def controller_acts(kind: str) -> tuple[str, str] | None:
    """Step 6's title for a controller of `kind` (None for a bare Pod: no controller acts)."""
    if kind == "Pod":
        return None
    return _CONTROLLERS.get(kind, (f"The {kind} controller acts", f"{kind} 控制器执行操作"))

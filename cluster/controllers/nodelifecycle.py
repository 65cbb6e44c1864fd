"""The node lifecycle controller: a node whose kubelet stopped posting goes `Unknown`, is tainted
`node.kubernetes.io/unreachable` (NoExecute and NoSchedule) and its pods are marked not ready, as
upstream's `pkg/controller/nodelifecycle` does at v1.33; the taint manager
(`tainteviction.py`) then evicts them after their tolerations' 300 s (DefaultTolerationSeconds).
It runs inside the controller manager, on its informer's Nodes and Pods.

- monitorNodeHealth / tryUpdateNodeHealth: once a node was silent for `node-monitor-grace-period`
  (50 s at v1.33) its Ready, MemoryPressure, DiskPressure and PIDPressure conditions become
  `Unknown`, reason `NodeStatusUnknown`, "Kubelet stopped posting node status." (the last
  heartbeat kept); the node's Event `NodeNotReady` ("Node node2 status is now: NodeNotReady"),
  then each pod's Ready condition False with a Warning `NodeNotReady` "Node is not ready".
- doNoExecuteTaintingPass and doNoScheduleTaintingPass: `unreachable:NoExecute` (with its
  `timeAdded`) and `unreachable:NoSchedule` while Ready is Unknown, `not-ready` while it is False;
  taken off when the node is Ready again (its kubelet posts a Ready status).

What is silent: KubeSim's kubelets write their Lease only while somebody watches the cluster
(docs/architecture.md), and a teacher's jump of the clock is time in which they posted; so a
node is silent exactly when its kubelet was stopped (`cluster/kubelet/power.py`), since the time it
stopped on the cluster's clock. Not simulated: the zones' eviction rate limits and the
large-cluster and full-disruption modes (every node down stops evictions upstream).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from cluster.apiserver import service as api
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.kubelet import power
from k8s import clock

COMPONENT = "node-controller"
GRACE_PERIOD = timedelta(seconds=50)  # --node-monitor-grace-period
UNREACHABLE = "node.kubernetes.io/unreachable"
NOT_READY = "node.kubernetes.io/not-ready"
UNKNOWN_REASON = "NodeStatusUnknown"
UNKNOWN_MESSAGE = "Kubelet stopped posting node status."
# The conditions the controller sets to Unknown with Ready (the kubelet's own, in its order).
KUBELET_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_OURS = {(key, effect) for key in (UNREACHABLE, NOT_READY) for effect in ("NoExecute", "NoSchedule")}


def _parse(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def ready_status(node: dict) -> str:
    """The Ready condition's status; "" for a node its kubelet has not registered yet."""
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") or "Unknown"
    return ""


def unknown_conditions(conditions: list[dict], now: str) -> list[dict]:
    """tryUpdateNodeHealth for a node past its grace period: every kubelet condition Unknown (a
    missing one added, NodeStatusNeverUpdated), the heartbeat it last posted kept."""
    result = [dict(c) for c in conditions]
    for type_ in KUBELET_CONDITIONS:
        found = next((c for c in result if c.get("type") == type_), None)
        if found is None:
            result.append(
                {
                    "type": type_,
                    "status": "Unknown",
                    "lastHeartbeatTime": now,
                    "lastTransitionTime": now,
                    "reason": "NodeStatusNeverUpdated",
                    "message": "Kubelet never posted node status.",
                }
            )
        elif found.get("status") != "Unknown":
            found.update(
                status="Unknown", reason=UNKNOWN_REASON, message=UNKNOWN_MESSAGE, lastTransitionTime=now
            )
    return result


def wanted_taints(node: dict) -> list[tuple[str, str]]:
    """The controller's taints for the node's Ready condition (key, effect), NoExecute first."""
    status = ready_status(node)
    if status == "Unknown":
        return [(UNREACHABLE, "NoExecute"), (UNREACHABLE, "NoSchedule")]
    if status == "False":
        return [(NOT_READY, "NoExecute"), (NOT_READY, "NoSchedule")]
    return []


class NodeLifecycleController:
    def __init__(self, host) -> None:
        self.host = host  # the ControllerManager: its informer, cluster and actor
        self.dirty: set[str] = set()
        self.silent_seen: dict[str, str] = {}  # node -> the stop this controller last planned for

    def observe(self, kind: str, name: str) -> None:
        if kind == "Node":
            self.dirty.add(name)

    def _silent_since(self, name: str) -> datetime | None:
        stopped = power.stopped(self.host.cluster_name).get(name)
        return _parse(stopped) if stopped else None

    def _overdue(self) -> set[str]:
        """Silent nodes past their grace period, and nodes whose kubelet's state changed."""
        found = set()
        now = clock.now()
        stopped = power.stopped(self.host.cluster_name)
        for (_, name), node in self.host.informer.store["Node"].items():
            since = _parse(stopped[name]) if name in stopped else None
            if since is not None and since + GRACE_PERIOD <= now and ready_status(node) != "Unknown":
                found.add(name)
        for name in set(self.silent_seen) ^ set(stopped):
            found.add(name)
        return found

    def due(self) -> bool:
        self.dirty |= self._overdue()
        return bool(self.dirty)

    def next_wakeup(self) -> float | None:
        now, waits = clock.now(), []
        for name, text in power.stopped(self.host.cluster_name).items():
            since, node = _parse(text), self.host.informer.get("Node", "", name)
            if since is not None and node is not None and ready_status(node) != "Unknown":
                waits.append(max(0.0, (since + GRACE_PERIOD - now).total_seconds()))
        return min(waits, default=None)

    # -- database thread -------------------------------------------------------------------
    def sync_all(self) -> int:
        dirty, self.dirty = sorted(self.dirty), set()
        self.silent_seen = dict(power.stopped(self.host.cluster_name))
        for name in dirty:
            node = self.host.informer.get("Node", "", name)
            if node is not None:
                self.sync(node)
        return len(dirty)

    def sync(self, node: dict) -> None:
        name = node["metadata"]["name"]
        since = self._silent_since(name)
        if since is not None and since + GRACE_PERIOD <= clock.now() and ready_status(node) != "Unknown":
            node = self._mark_unknown(node)
            if node is None:
                return
        self._taint(node)

    def _mark_unknown(self, node: dict) -> dict | None:
        name = node["metadata"]["name"]
        was_ready = ready_status(node) == "True"
        body = copy.deepcopy(node)
        status = body.setdefault("status", {})
        status["conditions"] = unknown_conditions(status.get("conditions") or [], now_rfc3339())
        body["metadata"].pop("resourceVersion", None)
        actor = self.host.actor(None, COMPONENT)
        try:
            stored = api.update(self.host.cluster, body, actor, subresource="status")
        except ApiError:
            return None
        self.host.assume(stored)
        if was_ready:
            # RecordNodeStatusChange, then MarkPodsNotReady.
            message = f"Node {name} status is now: NodeNotReady"
            event_recorder.record(
                self.host.cluster, stored, "NodeNotReady", message, actor, component=COMPONENT
            )
            self._mark_pods_not_ready(name)
        return stored

    def _mark_pods_not_ready(self, node: str) -> None:
        actor = self.host.actor(None, COMPONENT)
        for _, pod in sorted(self.host.informer.store["Pod"].items()):
            if (pod.get("spec") or {}).get("nodeName") != node:
                continue
            conditions = [dict(c) for c in (pod.get("status") or {}).get("conditions") or []]
            ready = next((c for c in conditions if c.get("type") == "Ready"), None)
            if ready is None or ready.get("status") == "False":
                continue  # UpdatePodCondition: nothing changes
            ready.update(status="False", lastTransitionTime=now_rfc3339())
            body = copy.deepcopy(pod)
            body["status"]["conditions"] = conditions
            body["metadata"].pop("resourceVersion", None)
            try:
                stored = api.update(self.host.cluster, body, actor, subresource="status")
            except ApiError:
                continue  # deleted meanwhile
            event_recorder.record(
                self.host.cluster,
                stored,
                "NodeNotReady",
                "Node is not ready",
                actor,
                type_="Warning",
                component=COMPONENT,
            )

    def _taint(self, node: dict) -> None:
        """The tainting passes: the taints the Ready condition calls for added (NoExecute ones with
        timeAdded), the controller's others removed."""
        wanted = wanted_taints(node)
        taints = [t for t in (node.get("spec") or {}).get("taints") or [] if isinstance(t, dict)]
        kept = [
            t
            for t in taints
            if (t.get("key"), t.get("effect")) not in _OURS or (t.get("key"), t.get("effect")) in wanted
        ]
        have = {(t.get("key"), t.get("effect")) for t in kept}
        added = []
        for key, effect in wanted:
            if (key, effect) not in have:
                taint = {"key": key, "effect": effect}
                if effect == "NoExecute":
                    taint["timeAdded"] = now_rfc3339()
                added.append(taint)
        if not added and len(kept) == len(taints):
            return
        body = copy.deepcopy(node)
        body.setdefault("spec", {})["taints"] = [*kept, *added] or None
        if body["spec"]["taints"] is None:
            del body["spec"]["taints"]
        body["metadata"].pop("resourceVersion", None)
        try:
            stored = api.update(self.host.cluster, body, self.host.actor(None, COMPONENT))
        except ApiError:
            return
        self.host.assume(stored)

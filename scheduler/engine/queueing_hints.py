"""Cluster events and the plugins' queueing hints, as kube-scheduler v1.33 registers them.

A pod that no node could take waits in unschedulablePods until a cluster event arrives that one of
the plugins that rejected it registered (`EventsToRegister`), and that plugin's QueueingHint says
the event may make the pod schedulable (Queue, not QueueSkip). v1.33 runs with the
SchedulerQueueingHints gate on, so each plugin registers its hinted set of events:

docs/scheduler.md lists each plugin's events and when its hint queues the pod.

The functions are pure: they read the pod and the event's old and new objects only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from k8s.labels import SelectorError, label_selector
from scheduler.engine.framework import CycleState, PreFilterResult, Why
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.volumerestrictions.volume_restrictions import _disks, conflicts
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.registry import new_plugin

NODE, POD = "Node", "Pod"
PVC, PV, STORAGE_CLASS, CSI_NODE = "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode"
ADD, DELETE, UPDATE = "Add", "Delete", "Update"
UPDATE_NODE_LABEL, UPDATE_NODE_TAINT, UPDATE_NODE_ALLOCATABLE = (
    "UpdateNodeLabel",
    "UpdateNodeTaint",
    "UpdateNodeAllocatable",
)
UPDATE_POD_LABEL, UPDATE_POD_TOLERATION = "UpdatePodLabel", "UpdatePodToleration"


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: str  # Node | Pod | PersistentVolumeClaim | PersistentVolume | StorageClass
    action: str  # Add | Delete | one Update* kind
    old: dict | None
    new: dict | None

    @property
    def obj(self) -> dict:
        return self.new if self.new is not None else (self.old or {})

    @property
    def label(self) -> str:
        meta = self.obj.get("metadata") or {}
        name = meta.get("name", "")
        if self.resource == POD:
            name = f"{meta.get('namespace', 'default')}/{name}"
        return f"{self.resource}/{self.action} {name}"


def node_events(old: dict | None, new: dict | None) -> list[ClusterEvent]:
    """The events a node's change raises (upstream's nodeSchedulingPropertiesChange)."""
    if old is None:
        return [ClusterEvent(NODE, ADD, None, new)]
    if new is None:
        return [ClusterEvent(NODE, DELETE, old, None)]
    events = []
    o_meta, n_meta = old.get("metadata") or {}, new.get("metadata") or {}
    o_spec, n_spec = old.get("spec") or {}, new.get("spec") or {}
    if (o_meta.get("labels") or {}) != (n_meta.get("labels") or {}):
        events.append(ClusterEvent(NODE, UPDATE_NODE_LABEL, old, new))
    if (o_spec.get("taints") or []) != (n_spec.get("taints") or []) or bool(
        o_spec.get("unschedulable")
    ) != bool(n_spec.get("unschedulable")):
        events.append(ClusterEvent(NODE, UPDATE_NODE_TAINT, old, new))
    if ((old.get("status") or {}).get("allocatable") or {}) != (
        (new.get("status") or {}).get("allocatable") or {}
    ):
        events.append(ClusterEvent(NODE, UPDATE_NODE_ALLOCATABLE, old, new))
    return events


def _node_name(pod: dict | None) -> str:
    return ((pod or {}).get("spec") or {}).get("nodeName") or ""


def pod_events(old: dict | None, new: dict | None) -> list[ClusterEvent]:
    """The events a pod's change raises: a binding counts as the assigned pod's Add."""
    if new is None:
        return [ClusterEvent(POD, DELETE, old, None)]
    if old is None or (not _node_name(old) and _node_name(new)):
        return [ClusterEvent(POD, ADD, None, new)]
    events = []
    if ((old.get("metadata") or {}).get("labels") or {}) != ((new.get("metadata") or {}).get("labels") or {}):
        events.append(ClusterEvent(POD, UPDATE_POD_LABEL, old, new))
    if ((old.get("spec") or {}).get("tolerations") or []) != (
        (new.get("spec") or {}).get("tolerations") or []
    ):
        events.append(ClusterEvent(POD, UPDATE_POD_TOLERATION, old, new))
    return events


# -- hints -----------------------------------------------------------------------------------------
Hint = Callable[[PodInfo, ClusterEvent], bool]
_plugins: dict[str, object] = {}


def _plugin(name: str):
    if name not in _plugins:
        _plugins[name] = new_plugin(name)
    return _plugins[name]


def _passes(plugin: str, pod: PodInfo, node: dict | None) -> bool:
    """Does `pod` pass `plugin`'s filter on `node` with no pod bound to it (upstream's isFit)?"""
    if node is None:
        return False
    info = NodeInfo.of(node)
    state = CycleState(None)
    instance = _plugin(plugin)
    outcome = instance.pre_filter(state, pod, [info], None)
    if isinstance(outcome, PreFilterResult):
        return info.name in outcome.node_names
    if outcome is not None and outcome.is_skip:
        return True
    if outcome is not None and outcome.is_rejection:
        return False
    return not instance.filter(state, pod, [info])


def _is_target(pod: PodInfo, event: ClusterEvent) -> bool:
    meta = event.obj.get("metadata") or {}
    return (meta.get("uid") or None, meta.get("namespace", "default"), meta.get("name")) == (
        pod.uid or None,
        pod.namespace,
        pod.name,
    ) or (not pod.uid and (meta.get("namespace", "default"), meta.get("name")) == (pod.namespace, pod.name))


def _target_tolerations_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    return _is_target(pod, event)


def _node_unschedulable_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    was = event.old is not None and not bool((event.old.get("spec") or {}).get("unschedulable"))
    now = event.new is not None and not bool((event.new.get("spec") or {}).get("unschedulable"))
    return not was and now


def _unschedulable_tolerated(pod: PodInfo, event: ClusterEvent) -> bool:
    if not _is_target(pod, event):
        return False
    cordoned = {"spec": {"unschedulable": True}, "metadata": {"name": "cordoned"}, "status": {}}
    return _passes("NodeUnschedulable", PodInfo.of(event.new or pod.pod), cordoned)


def _node_name_added(pod: PodInfo, event: ClusterEvent) -> bool:
    name = (event.obj.get("metadata") or {}).get("name")
    return bool(pod.node_name) and pod.node_name == name


def _taint_gone(pod: PodInfo, event: ClusterEvent) -> bool:
    was_untolerated = event.old is None or not _passes("TaintToleration", pod, event.old)
    return was_untolerated and _passes("TaintToleration", pod, event.new)


def _now_matches_affinity(pod: PodInfo, event: ClusterEvent) -> bool:
    if not _passes("NodeAffinity", pod, event.new):
        return False
    return event.old is None or not _passes("NodeAffinity", pod, event.old)


def _freed_host_port(pod: PodInfo, event: ClusterEvent) -> bool:
    deleted = event.old or {}
    if not _node_name(deleted):
        return False
    theirs = PodInfo.of(deleted).host_ports
    for mine in pod.host_ports:
        for used in theirs:
            if mine.protocol != used.protocol or mine.port != used.port:
                continue
            if "0.0.0.0" in (mine.ip, used.ip) or mine.ip == used.ip:
                return True
    return False


def _always(pod: PodInfo, event: ClusterEvent) -> bool:
    return True


def _never(pod: PodInfo, event: ClusterEvent) -> bool:
    return False


def _fit_after_pod_deleted(pod: PodInfo, event: ClusterEvent) -> bool:
    deleted = event.old or {}
    return bool(_node_name(deleted) or (deleted.get("status") or {}).get("nominatedNodeName"))


def _fit_after_node_change(pod: PodInfo, event: ClusterEvent) -> bool:
    if not _passes("NodeResourcesFit", pod, event.new):
        return False  # the pod would not fit even on the empty node
    if event.old is None:
        return True
    old = NodeInfo.of(event.old).allocatable
    new = NodeInfo.of(event.new or {}).allocatable
    if new.allowed_pod_number > old.allowed_pod_number:
        return True
    req = pod.requests
    if not (req.milli_cpu or req.memory or req.ephemeral_storage or req.scalars):
        return False
    return (
        (req.milli_cpu > 0 and new.milli_cpu > old.milli_cpu)
        or (req.memory > 0 and new.memory > old.memory)
        or (req.ephemeral_storage > 0 and new.ephemeral_storage > old.ephemeral_storage)
        or any(q and new.scalars.get(n, 0) > old.scalars.get(n, 0) for n, q in req.scalars.items())
    )


def _freed_disk(pod: PodInfo, event: ClusterEvent) -> bool:
    deleted = event.old or {}
    if not _node_name(deleted):
        return False
    theirs = _disks((deleted.get("spec") or {}).get("volumes") or [])
    return any(conflicts(mine, other) for mine in _disks(pod.volumes) for other in theirs)


def _selects(selector: dict | None, labels: dict) -> bool:
    try:
        return label_selector(selector)(labels)
    except SelectorError:
        return False


def _changed_pods(event: ClusterEvent) -> list[dict]:
    return [p for p in (event.old, event.new) if p is not None]


def _spread_pod_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    for changed in _changed_pods(event):
        meta = changed.get("metadata") or {}
        if not _node_name(changed) or meta.get("namespace", "default") != pod.namespace:
            continue
        labels = meta.get("labels") or {}
        if any(_selects(c.get("labelSelector"), labels) for c in pod.spread_constraints):
            return True
    return False


def _labels_of(node: dict | None) -> dict:
    return ((node or {}).get("metadata") or {}).get("labels") or {}


def _has_keys(node: dict | None, keys: set[str]) -> bool:
    return node is not None and keys.issubset(_labels_of(node))


def _spread_node_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    keys = {c.get("topologyKey", "") for c in pod.spread_constraints}
    if not keys:
        return False
    if event.action == ADD:
        return _has_keys(event.new, keys)
    if event.action == DELETE:
        return _has_keys(event.old, keys)
    if event.action == UPDATE_NODE_TAINT:
        return _has_keys(event.new, keys) and any(
            c.get("nodeTaintsPolicy") == "Honor" for c in pod.spread_constraints
        )
    old, new = _labels_of(event.old), _labels_of(event.new)
    return any(old.get(k) != new.get(k) for k in keys)


def _affinity_terms(pod: PodInfo, kind: str) -> list[dict]:
    section = pod.affinity.get(kind) or {}
    return list(section.get("requiredDuringSchedulingIgnoredDuringExecution") or [])


def _term_matches(term: dict, owner_namespace: str, other: dict) -> bool:
    meta = other.get("metadata") or {}
    namespaces = term.get("namespaces") or []
    if term.get("namespaceSelector") is None and meta.get("namespace", "default") not in (
        namespaces or [owner_namespace]
    ):
        return False
    return _selects(term.get("labelSelector"), meta.get("labels") or {})


def _affinity_pod_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    if event.new is not None:
        if not _node_name(event.new):
            return False
        return any(_term_matches(t, pod.namespace, event.new) for t in _affinity_terms(pod, "podAffinity"))
    deleted = event.old or {}
    if not _node_name(deleted):
        return False
    if any(_term_matches(t, pod.namespace, deleted) for t in _affinity_terms(pod, "podAntiAffinity")):
        return True
    theirs = PodInfo.of(deleted)
    return any(
        _term_matches(t, theirs.namespace, pod.pod) for t in _affinity_terms(theirs, "podAntiAffinity")
    )


def _affinity_node_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    keys = {
        t.get("topologyKey", "")
        for kind in ("podAffinity", "podAntiAffinity")
        for t in _affinity_terms(pod, kind)
    }
    if event.action == ADD:
        return bool(keys & set(_labels_of(event.new)))
    old, new = _labels_of(event.old), _labels_of(event.new)
    return any(old.get(k) != new.get(k) for k in keys)


def _claim_names(pod: PodInfo) -> set[str]:
    names = set()
    for volume in pod.volumes:
        if isinstance(volume, dict) and isinstance(volume.get("persistentVolumeClaim"), dict):
            names.add(volume["persistentVolumeClaim"].get("claimName") or "")
        elif isinstance(volume, dict) and volume.get("ephemeral") is not None:
            names.add(f"{pod.name}-{volume.get('name') or ''}")
    return names


def _own_claim_changed(pod: PodInfo, event: ClusterEvent) -> bool:
    """isSchedulableAfterPersistentVolumeClaimChange: one of the pod's own claims was added or changed."""
    meta = event.obj.get("metadata") or {}
    return (meta.get("namespace") or "") == pod.namespace and meta.get("name") in _claim_names(pod)


def _claim_user_deleted(pod: PodInfo, event: ClusterEvent) -> bool:
    """NodeVolumeLimits: a scheduled pod that mounted claims went away (its volumes detach)."""
    old = event.old or {}
    spec = old.get("spec") or {}
    return bool(spec.get("nodeName")) and any(
        isinstance(v, dict) and (v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None)
        for v in spec.get("volumes") or []
    )


@dataclass(frozen=True, slots=True)
class Registration:
    resource: str
    actions: frozenset[str]
    hint: Hint
    why: Why  # "will be retried when …", in plain language


def _reg(resource: str, actions: tuple[str, ...], hint: Hint, en: str, zh: str) -> Registration:
    return Registration(resource, frozenset(actions), hint, Why(en, zh))


REGISTRATIONS: dict[str, list[Registration]] = {
    "NodeUnschedulable": [
        _reg(NODE, (ADD, UPDATE_NODE_TAINT), _node_unschedulable_changed,
             "a schedulable node is added or a node is uncordoned",
             "新增可调度节点或某节点取消封锁（uncordon）"),
        _reg(POD, (UPDATE_POD_TOLERATION,), _unschedulable_tolerated,
             "the pod gets a toleration for node.kubernetes.io/unschedulable",
             "该 Pod 增加了对 node.kubernetes.io/unschedulable 的容忍"),
    ],
    "NodeName": [
        _reg(NODE, (ADD,), _node_name_added, "the node named in spec.nodeName is added",
             "spec.nodeName 指定的节点被加入"),
    ],
    "TaintToleration": [
        _reg(NODE, (ADD, UPDATE_NODE_TAINT), _taint_gone,
             "a node without an untolerated NoSchedule/NoExecute taint is added, or such a taint is removed",
             "新增没有不可容忍污点的节点，或某节点移除了不可容忍的 NoSchedule/NoExecute 污点"),
        _reg(POD, (UPDATE_POD_TOLERATION,), _target_tolerations_changed,
             "the pod's own tolerations change", "该 Pod 自身的容忍（tolerations）发生变化"),
    ],
    "NodeAffinity": [
        _reg(NODE, (ADD, UPDATE_NODE_LABEL), _now_matches_affinity,
             "a node matching the pod's node selector / required node affinity is added or labelled so",
             "新增与 Pod 的 nodeSelector／必需节点亲和性匹配的节点，或某节点被打上匹配的标签"),
    ],
    "NodePorts": [
        _reg(POD, (DELETE,), _freed_host_port,
             "a scheduled pod using one of the pod's host ports is deleted",
             "占用该 Pod 所需主机端口的已调度 Pod 被删除"),
        _reg(NODE, (ADD,), _always, "any node is added", "新增任意节点"),
    ],
    "NodeResourcesFit": [
        _reg(POD, (DELETE,), _fit_after_pod_deleted,
             "a scheduled or nominated pod is deleted (its resources are freed)",
             "已调度（或已提名）的 Pod 被删除，释放了资源"),
        _reg(NODE, (ADD, UPDATE_NODE_ALLOCATABLE), _fit_after_node_change,
             "a node big enough for the pod is added, or a node's allocatable grows in a resource "
             "it requests",
             "新增足够大的节点，或某节点在该 Pod 请求的资源上 allocatable 增加"),
    ],
    "VolumeRestrictions": [
        _reg(POD, (DELETE,), _freed_disk,
             "the scheduled pod holding a conflicting disk is deleted", "占用冲突磁盘的已调度 Pod 被删除"),
        _reg(PVC, (ADD, UPDATE), _own_claim_changed,
             "one of the pod's PersistentVolumeClaims is created or changes",
             "该 Pod 的某个 PersistentVolumeClaim 被创建或发生变化"),
    ],
    "NodeVolumeLimits": [
        _reg(POD, (DELETE,), _claim_user_deleted,
             "a scheduled pod that used volumes is deleted (its volumes detach)",
             "使用卷的已调度 Pod 被删除（其卷被卸下）"),
        _reg(CSI_NODE, (ADD, UPDATE), _always,
             "a CSINode is created or changes (a driver's volume limit)",
             "有 CSINode 被创建或发生变化（驱动的卷数量上限）"),
        _reg(PVC, (ADD,), _own_claim_changed,
             "one of the pod's PersistentVolumeClaims is created",
             "该 Pod 的某个 PersistentVolumeClaim 被创建"),
    ],
    "VolumeBinding": [
        _reg(PVC, (ADD, UPDATE), _own_claim_changed,
             "one of the pod's PersistentVolumeClaims is created or changes (e.g. gets bound)",
             "该 Pod 的某个 PersistentVolumeClaim 被创建或发生变化（例如已绑定）"),
        _reg(PV, (ADD, UPDATE), _always,
             "a PersistentVolume is created or changes", "有 PersistentVolume 被创建或发生变化"),
        _reg(STORAGE_CLASS, (ADD, UPDATE), _always,
             "a StorageClass is created or changes", "有 StorageClass 被创建或发生变化"),
        _reg(NODE, (ADD, UPDATE_NODE_LABEL, UPDATE_NODE_TAINT), _always,
             "a node is added or its labels or taints change", "新增节点，或节点的标签或污点发生变化"),
    ],
    "VolumeZone": [
        _reg(PVC, (ADD, UPDATE), _own_claim_changed,
             "one of the pod's PersistentVolumeClaims is created or changes",
             "该 Pod 的某个 PersistentVolumeClaim 被创建或发生变化"),
        _reg(PV, (ADD, UPDATE), _always,
             "a PersistentVolume is created or changes", "有 PersistentVolume 被创建或发生变化"),
        _reg(STORAGE_CLASS, (ADD,), _always, "a StorageClass is created", "有 StorageClass 被创建"),
        _reg(NODE, (ADD, UPDATE_NODE_LABEL), _always,
             "a node is added or its labels change", "新增节点，或节点的标签发生变化"),
    ],
    "PodTopologySpread": [
        _reg(POD, (ADD, UPDATE_POD_LABEL, DELETE), _spread_pod_changed,
             "a scheduled pod selected by its spread constraints is added, relabelled or deleted",
             "被其拓扑分布约束选中的已调度 Pod 被新增、改标签或删除"),
        _reg(NODE, (ADD, DELETE, UPDATE_NODE_LABEL, UPDATE_NODE_TAINT), _spread_node_changed,
             "a node carrying the constraints' topology keys is added, removed or relabelled",
             "带有约束拓扑键的节点被新增、删除或改标签"),
    ],
    "InterPodAffinity": [
        _reg(POD, (ADD, UPDATE_POD_LABEL, DELETE), _affinity_pod_changed,
             "a pod its affinity wants appears, or a pod its anti-affinity avoids goes away",
             "出现其亲和性需要的 Pod，或其反亲和性回避的 Pod 被删除"),
        _reg(NODE, (ADD, UPDATE_NODE_LABEL), _affinity_node_changed,
             "a node with a term's topology key is added or relabelled",
             "新增带有某条规则拓扑键的节点，或该标签发生变化"),
    ],
    "DefaultPreemption": [
        _reg(POD, (DELETE,), _never,
             "never by itself: the plugins whose failure preemption resolves requeue the pod",
             "从不单独唤醒：由抢占所解决的那些插件负责重新入队"),
    ],
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Wake:
    plugin: str
    event: ClusterEvent
    why: Why


def wake(rejectors: frozenset[str], pod: PodInfo, event: ClusterEvent) -> Wake | None:
    """isPodWorthRequeuing: the first rejector plugin whose hint queues the pod for `event`."""
    for plugin in sorted(rejectors):
        for registration in REGISTRATIONS.get(plugin, ()):
            if registration.resource != event.resource or event.action not in registration.actions:
                continue
            try:
                queue = registration.hint(pod, event)
            except (KeyError, TypeError, ValueError, AttributeError):
                queue = True  # upstream queues the pod when a hint errs
            if queue:
                why = Why(
                    f"{event.label}: {plugin} says this may help ({registration.why.en}).",
                    f"{event.label}：{plugin} 认为这可能有帮助（{registration.why.zh}）。",
                )
                return Wake(plugin, event, why)
    return None


def retry_when(rejectors: frozenset[str]) -> list[dict]:
    """Each rejecting plugin's registered events, in plain language (en/zh)."""
    found = []
    for plugin in sorted(rejectors):
        for registration in REGISTRATIONS.get(plugin, ()):
            found.append(
                {
                    "plugin": plugin,
                    "resource": registration.resource,
                    "actions": sorted(registration.actions),
                    "why": registration.why.as_dict(),
                }
            )
    return found

"""The taint eviction controller ("the taint manager"): pods on a node with a NoExecute taint they
do not tolerate are deleted, as upstream's `pkg/controller/tainteviction` does at v1.33. It runs
inside the controller manager, on its informer (Nodes and Pods).

- A node whose NoExecute taints change is looked at again, and so is every pod on it; a pod whose
  tolerations or node change is looked at again (NodeUpdated, PodUpdated).
- processPodOnNode: a taint no toleration matches → the pod is deleted now; all tolerated, the
  shortest `tolerationSeconds` among the tolerations used → deleted that long after the taint was
  seen (an earlier eviction already planned stays); no limit → never, and a planned one is
  cancelled. Time is the cluster's simulated clock, so a teacher's jump makes evictions due.
- The deletion (addConditionAndDeletePod): the pod's DisruptionTarget condition
  (DeletionByTaintManager), then a graceful delete with default options; the Events are
  upstream's `TaintManagerEviction` ("Marking for deletion Pod ns/name", "Cancelling deletion of
  Pod ns/name"), from the component `taint-eviction-controller`.

As upstream, a planned eviction lives in the controller's memory: a control plane that starts
again (a new leader, a parked cluster woken) plans from its own start.
"""

from __future__ import annotations

from dataclasses import dataclass

from cluster.apiserver import service as api
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.controllers import texts
from k8s import clock
from scheduler.engine.tolerations import tolerates

COMPONENT = "taint-eviction-controller"
CONDITION_REASON = "DeletionByTaintManager"
CONDITION_MESSAGE = "Taint manager: deleting due to NoExecute taint"
MERGE_PATCH = "application/merge-patch+json"

PodKey = tuple[str, str]  # namespace, name


@dataclass(slots=True)
class Planned:
    """A pod's eviction in the timed queue: when it was planned and when it fires (clock.monotonic())."""

    created_at: float
    fire_at: float
    node: str
    why: tuple[str, str]


def no_execute_taints(node: dict | None) -> list[dict]:
    taints = ((node or {}).get("spec") or {}).get("taints") or []
    return [t for t in taints if isinstance(t, dict) and t.get("effect") == "NoExecute"]


def _comparable(taints: list[dict]) -> list[tuple]:
    """Semantic.DeepEqual of two taint lists, as NodeUpdated compares them."""
    return [(t.get("key"), t.get("value"), t.get("effect"), t.get("timeAdded")) for t in taints]


def matching_tolerations(taints: list[dict], tolerations: list[dict]) -> tuple[bool, list[dict]]:
    """GetMatchingTolerations: whether every taint is tolerated, and the tolerations that did it
    (the first one that matches each taint)."""
    if not taints:
        return True, []
    used = []
    for taint in taints:
        found = next((t for t in tolerations if isinstance(t, dict) and tolerates(t, taint)), None)
        if found is None:
            return False, []
        used.append(found)
    return True, used


def min_toleration_seconds(tolerations: list[dict]) -> int:
    """getMinTolerationTime: the shortest tolerationSeconds (≤ 0 is 0), or -1 when none sets one."""
    if not tolerations:
        return 0
    shortest = None
    for toleration in tolerations:
        seconds = toleration.get("tolerationSeconds")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            if seconds <= 0:
                return 0
            shortest = seconds if shortest is None else min(shortest, seconds)
    return -1 if shortest is None else shortest


def _tolerations(pod: dict | None) -> list:
    value = ((pod or {}).get("spec") or {}).get("tolerations") or []
    return value if isinstance(value, list) else []


def _node_name(pod: dict | None) -> str:
    return ((pod or {}).get("spec") or {}).get("nodeName") or ""


class TaintEvictionController:
    def __init__(self, host) -> None:
        self.host = host  # the ControllerManager: its informer, cluster and actor
        self.tainted: dict[str, list[dict]] = {}  # node -> its NoExecute taints
        self.planned: dict[PodKey, Planned] = {}
        self.nodes_to_look_at: set[str] = set()
        self.pods_to_look_at: dict[PodKey, str] = {}  # pod -> the node it was on when it changed

    # -- what the manager tells it (event-loop side, no database) -----------------------------
    def observe(
        self, kind: str, key: tuple[str, str], obj: dict | None, old: dict | None, deleted: bool
    ) -> None:
        if kind == "Node":
            new_taints = [] if deleted else no_execute_taints(obj)
            if (
                old is not None
                and not deleted
                and _comparable(no_execute_taints(old)) == _comparable(new_taints)
            ):
                return
            self.nodes_to_look_at.add(key[1])
        elif kind == "Pod":
            now = None if deleted else obj
            if (
                old is not None
                and now is not None
                and _tolerations(old) == _tolerations(now)
                and _node_name(old) == _node_name(now)
            ):
                return
            self.pods_to_look_at[key] = _node_name(now if now is not None else old)

    def due(self) -> bool:
        now = clock.monotonic()
        return bool(self.nodes_to_look_at or self.pods_to_look_at) or any(
            p.fire_at <= now for p in self.planned.values()
        )

    def next_wakeup(self) -> float | None:
        if not self.planned:
            return None
        return max(0.0, min(p.fire_at for p in self.planned.values()) - clock.monotonic())

    # -- database thread -------------------------------------------------------------------
    def sync_all(self) -> int:
        """Node updates before pod updates (upstream's workers drain the node queue first), then
        the evictions that are due. Returns how much it did."""
        nodes, self.nodes_to_look_at = sorted(self.nodes_to_look_at), set()
        pods, self.pods_to_look_at = self.pods_to_look_at, {}
        for node in nodes:
            self._node_updated(node)
        for key, node in sorted(pods.items()):
            self._pod_updated(key, node)
        now = clock.monotonic()
        fired = sorted(key for key, planned in self.planned.items() if planned.fire_at <= now)
        for key in fired:
            self._evict(key, self.planned.pop(key))
        return len(nodes) + len(pods) + len(fired)

    def _node_updated(self, name: str) -> None:
        """handleNodeUpdate."""
        node = self.host.informer.get("Node", "", name)
        if node is None:
            self.tainted.pop(name, None)
            return
        taints = no_execute_taints(node)
        if taints:
            self.tainted[name] = taints
        else:
            self.tainted.pop(name, None)
        pods = [
            (key, pod)
            for key, pod in sorted(self.host.informer.store["Pod"].items())
            if _node_name(pod) == name
        ]
        if not taints:
            for key, _ in pods:
                self._cancel(key)
            return
        now = clock.monotonic()
        for key, pod in pods:
            self._process(key, name, _tolerations(pod), taints, now)

    def _pod_updated(self, key: PodKey, node: str) -> None:
        """handlePodUpdate."""
        pod = self.host.informer.get("Pod", *key)
        if pod is None:
            self._cancel(key)
            return
        if _node_name(pod) != node or not node:
            return
        taints = self.tainted.get(node)
        if taints is None:
            return
        self._process(key, node, _tolerations(pod), taints, clock.monotonic())

    def _process(self, key: PodKey, node: str, tolerations: list, taints: list[dict], now: float) -> None:
        """processPodOnNode."""
        if not taints:
            self._cancel(key)
        all_tolerated, used = matching_tolerations(taints, tolerations)
        if not all_tolerated:
            self._cancel(key)
            untolerated = next(
                t for t in taints if not any(isinstance(x, dict) and tolerates(x, t) for x in tolerations)
            )
            self.planned[key] = Planned(now, now, node, texts.taint_evicted(node, untolerated, None))
            return
        seconds = min_toleration_seconds(used)
        if seconds < 0:
            self._cancel(key)
            return
        start, trigger = now, now + seconds
        planned = self.planned.get(key)
        if planned is not None:
            start = planned.created_at
            if start + seconds < trigger:
                return
            self._cancel(key)
        taint = next(
            t for t, tol in zip(taints, used, strict=True) if tol.get("tolerationSeconds") == seconds
        )
        self.planned[key] = Planned(start, start + seconds, node, texts.taint_evicted(node, taint, seconds))

    def _cancel(self, key: PodKey) -> None:
        """cancelWorkWithEvent: a planned eviction dropped, with its Event."""
        if self.planned.pop(key, None) is None:
            return
        self._event(key, f"Cancelling deletion of Pod {key[0]}/{key[1]}")

    def _event(self, key: PodKey, message: str) -> None:
        # Upstream's reference names the pod without its uid.
        ref = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": key[0], "name": key[1]}}
        actor = self.host.actor(None, COMPONENT)
        event_recorder.record(
            self.host.cluster, ref, "TaintManagerEviction", message, actor, component=COMPONENT
        )

    def _evict(self, key: PodKey, planned: Planned) -> None:
        """deletePodHandler: the Event, then the DisruptionTarget condition and the deletion."""
        self._event(key, f"Marking for deletion Pod {key[0]}/{key[1]}")
        try:
            pod = api.get(self.host.cluster, "Pod", *key)
        except ApiError:
            return
        actor = self.host.actor(None, COMPONENT)
        current = (pod.get("status") or {}).get("conditions") or []
        conditions = [c for c in current if c.get("type") != "DisruptionTarget"]
        marked = len(conditions) < len(current) and any(
            c.get("type") == "DisruptionTarget"
            and (c.get("status"), c.get("reason"), c.get("message"))
            == ("True", CONDITION_REASON, CONDITION_MESSAGE)
            for c in current
        )
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": now_rfc3339(),
                "reason": CONDITION_REASON,
                "message": CONDITION_MESSAGE,
            }
        )
        try:
            if not marked:  # UpdatePodCondition: an equal condition is not written again
                patch = {"status": {"conditions": conditions}}
                api.patch(self.host.cluster, "Pod", *key, patch, MERGE_PATCH, actor, "status")
            deleting = self.host.actor(None, COMPONENT)
            deleting.by, deleting.reason = COMPONENT, planned.why
            api.delete(self.host.cluster, "Pod", *key, deleting)
        except ApiError:
            return  # gone meanwhile

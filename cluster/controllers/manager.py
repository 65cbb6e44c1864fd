"""The controller manager: one list-watch over workloads and pods, and the controllers it runs.

Steps 5 and 6 of a trace are recorded here (the watch delivers the event; a controller decides);
the pods it creates land through the API server, which records steps 7 and 8.
"""

from __future__ import annotations

import time

from cluster.apiserver.actor import Actor
from cluster.apiserver.kinds import kind_info, workload_kinds
from cluster.broadcast import nudge
from cluster.client import counters
from cluster.client.informer import Delta, Informer, db
from cluster.controllers.cronjob import CronJobController
from cluster.controllers.daemonset import DaemonSetController
from cluster.controllers.deployment.controller import DeploymentController
from cluster.controllers.disruption import DisruptionController
from cluster.controllers.flowsteps import CONTROLLER_MANAGER
from cluster.controllers.job import JobController
from cluster.controllers.namespace import NamespaceController
from cluster.controllers.nodelifecycle import NodeLifecycleController
from cluster.controllers.persistentvolume import KINDS as VOLUME_KINDS
from cluster.controllers.persistentvolume import PersistentVolumeController
from cluster.controllers.podautoscaler.horizontal import HorizontalController
from cluster.controllers.pods import controller_ref, is_active, labels_of
from cluster.controllers.replicaset import ReplicaSetController
from cluster.controllers.replication import ReplicationManager
from cluster.controllers.statefulset import StatefulSetController
from cluster.controllers.tainteviction import TaintEvictionController
from cluster.controllers.volumeprotection import VolumeProtectionController
from cluster.flow import replacements
from cluster.flow.steps import CONTROLLER_MANAGER_PORT
from cluster.models import Cluster, FlowStep, FlowTrace
from k8s import clock

OwnerKey = tuple[str, str, str]  # kind, namespace, name
# What the HPA controller reads besides pods and nodes: the autoscalers, and what the usage model
# needs to send a load generator's requests to the pods behind a Service.
AUTOSCALER_KINDS = ("HorizontalPodAutoscaler", "Service", "Endpoints")
STORIES_KEPT = 1000  # deletion -> replacement stories remembered (then read again)
_ORDER = {
    "CronJob": 0,
    "Deployment": 0,
    "ReplicaSet": 1,
    "ReplicationController": 1,
    "DaemonSet": 1,
    "StatefulSet": 1,
    "Job": 1,
}
# Each controller's workqueue, by the name upstream's controller gives it (its `workqueue_*` series).
QUEUE_NAMES = {
    "ReplicationController": "replicationmanager",
    "ReplicaSet": "replicaset",
    "Deployment": "deployment",
    "DaemonSet": "daemonset",
    "StatefulSet": "statefulset",
    "Job": "job",
    "CronJob": "cronjob",
}


class ControllerManager:
    component = "controller-manager"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.workloads = workload_kinds()  # each has its controller below
        volumes = tuple(kind for kind in VOLUME_KINDS if kind_info(kind))  # the PV controller's, when served
        self.informer = Informer(
            cluster_name,
            self.component,
            (
                *self.workloads,
                "Pod",
                "Node",
                "PodDisruptionBudget",
                "ControllerRevision",
                *AUTOSCALER_KINDS,
                *volumes,
                "Namespace",
            ),
            "ReplicationControllers, ReplicaSets, Deployments, DaemonSets, StatefulSets, Jobs, CronJobs, "
            "Pods, Nodes, PodDisruptionBudgets, HorizontalPodAutoscalers, Services, Endpoints, "
            + (
                "ControllerRevisions, PersistentVolumeClaims, PersistentVolumes, StorageClasses"
                if volumes
                else "ControllerRevisions"
            )
            + " and Namespaces",
            CONTROLLER_MANAGER_PORT,
        )
        self.cluster: Cluster | None = None
        self.dirty: dict[OwnerKey, str | None] = {}
        self.pods_by_owner: dict[str, dict[tuple[str, str], dict]] = {}
        self.orphans: dict[tuple[str, str], dict] = {}  # active pods no controller owns
        self.stepped: set[str] = set()  # traces whose steps 5 and 6 are recorded
        self.stories: dict[str, str] = {}  # a pod's deletion trace -> its replacement's trace
        self.timers: dict[OwnerKey, float] = {}  # owner -> clock.monotonic() when it syncs again
        self.added: dict[OwnerKey, float] = {}  # owner -> time.perf_counter() when it was queued
        self.controllers = {
            "ReplicationController": ReplicationManager(self),
            "ReplicaSet": ReplicaSetController(self),
            "Deployment": DeploymentController(self),
            "DaemonSet": DaemonSetController(self),
            "StatefulSet": StatefulSetController(self),
            "Job": JobController(self),
            "CronJob": CronJobController(self),
        }
        self.disruption = DisruptionController(self)
        self.autoscaler = HorizontalController(self)
        self.volumes = PersistentVolumeController(self)
        self.volume_protection = VolumeProtectionController(self)
        self.taint_eviction = TaintEvictionController(self)
        self.node_lifecycle = NodeLifecycleController(self)
        self.namespaces = NamespaceController(self)
        for queue in QUEUE_NAMES.values():  # upstream's series exist from the queue's construction
            for name in (counters.QUEUE_ADDS, counters.QUEUE_RETRIES):
                counters.add(cluster_name, name, {"name": queue}, 0)
            counters.set_gauge(cluster_name, counters.QUEUE_DEPTH, {"name": queue}, 0)

    def actor(self, trace_id: str | None, detail: str) -> Actor:
        trace = FlowTrace(pk=trace_id) if trace_id else None
        return Actor("controller-manager", detail, trace, flow=CONTROLLER_MANAGER)

    async def step(self) -> bool:
        """Read the log, then reconcile every workload that changed; True when there was work."""
        deltas = [] if self.informer.up_to_date() else await db(self._sync)()
        for delta in deltas:
            self.disruption.observe(delta.kind, *delta.key)
            self.volumes.observe(delta.kind)
            self.volume_protection.observe(delta.kind)
            self.autoscaler.observe(delta.kind, *delta.key, delta.type == "DELETED")
            self.taint_eviction.observe(delta.kind, delta.key, delta.obj, delta.old, delta.type == "DELETED")
            self.node_lifecycle.observe(delta.kind, delta.key[1])
            self.namespaces.observe(delta.kind, delta.key[1], delta.obj, delta.type == "DELETED")
            self._observe(delta)
        budgets = await db(self.disruption.sync_all)() if self.disruption.due() else 0
        budgets += await db(self.autoscaler.sync_all)() if self.autoscaler.due() else 0
        budgets += await db(self.volumes.sync_all)() if self.volumes.due() else 0
        budgets += await db(self.volume_protection.sync_all)() if self.volume_protection.due() else 0
        budgets += await db(self.node_lifecycle.sync_all)() if self.node_lifecycle.due() else 0
        budgets += await db(self.taint_eviction.sync_all)() if self.taint_eviction.due() else 0
        budgets += await db(self.namespaces.sync_all)() if self.namespaces.due() else 0
        self._fire_timers()
        if not self.dirty:
            return bool(deltas) or self.informer.behind or bool(budgets)
        dirty, self.dirty = self.dirty, {}
        # Owners before what they own: a Deployment's scale-down reaches its ReplicaSet first.
        for (kind, namespace, name), trace_id in sorted(dirty.items(), key=lambda item: _ORDER[item[0][0]]):
            queue = self._take((kind, namespace, name), dirty)
            obj = self.informer.get(kind, namespace, name)
            counters.start_work(self.cluster_name, queue)
            try:
                if obj is not None:
                    if trace_id is not None and trace_id not in self.stepped:
                        trace_id = await self._story(trace_id, obj)
                    await self.controllers[kind].sync(obj, trace_id)
            finally:
                worked = counters.finish_work(self.cluster_name, queue)
                counters.observe(self.cluster_name, counters.QUEUE_WORK_DURATION, {"name": queue}, worked)
        return True

    def _take(self, key: OwnerKey, taken: dict[OwnerKey, str | None]) -> str:
        """The queue's Get for one owner: how long it waited, and the depth it leaves (what is
        still to sync of this pass, plus what was queued since)."""
        queue = QUEUE_NAMES[key[0]]
        added = self.added.pop(key, None)
        if added is not None:
            waited = time.perf_counter() - added
            counters.observe(self.cluster_name, counters.QUEUE_DURATION, {"name": queue}, waited)
        taken.pop(key, None)
        depth = sum(1 for k in (*taken, *self.dirty) if k[0] == key[0])
        counters.set_gauge(self.cluster_name, counters.QUEUE_DEPTH, {"name": queue}, depth)
        return queue

    async def _story(self, trace_id: str, owner: dict) -> str:
        """The deletion of one of the owner's pods: its replacement is a story of its own."""
        known = self.stories.get(trace_id)
        if known is not None:
            return known
        terminating = [
            pod["metadata"]["name"]
            for pod in self.owned_pods(owner)
            if pod["metadata"].get("deletionTimestamp")
        ]
        story = await db(replacements.story_for)(self.cluster, trace_id, owner, terminating)
        if story != trace_id:
            if len(self.stories) >= STORIES_KEPT:
                self.stories.clear()
            self.stories[trace_id] = story
        return story

    def _sync(self) -> list[Delta]:
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        return self.informer.sync()

    def next_wakeup(self) -> float | None:
        """Seconds until a budget's granted eviction times out (the disruption controller's
        recheck), a NoExecute taint's tolerationSeconds run out (the taint manager), an autoscaler's
        next look, a terminating namespace's next look or an owner asked to be synced again (a
        progress deadline)."""
        due = [
            self.disruption.next_wakeup(),
            self.autoscaler.next_wakeup(),
            self.taint_eviction.next_wakeup(),
            self.node_lifecycle.next_wakeup(),
            self.namespaces.next_wakeup(),
        ]
        if self.timers:
            due.append(max(0.0, min(self.timers.values()) - clock.monotonic()))
        return min((d for d in due if d is not None), default=None)

    def requeue_after(self, kind: str, namespace: str, name: str, seconds: float) -> None:
        """Sync this owner again in `seconds` (the workqueue's AddAfter); the earlier time wins."""
        key = (kind, namespace, name)
        due = clock.monotonic() + seconds
        self.timers[key] = min(due, self.timers.get(key, due))

    def _fire_timers(self) -> None:
        now = clock.monotonic()
        for key, due in list(self.timers.items()):
            if due <= now:
                del self.timers[key]
                self._mark(key, None)

    def _observe(self, delta: Delta) -> None:
        if delta.kind in ("PodDisruptionBudget", "Namespace", *AUTOSCALER_KINDS, *VOLUME_KINDS):
            return  # the disruption, namespace, autoscaler and PV controllers' (observed above)
        if delta.kind == "ControllerRevision":  # its owner's history changed (a deletion by hand)
            ref = controller_ref(delta.obj)
            if ref is not None and ref.get("kind") in self.workloads:
                self._mark((ref["kind"], delta.key[0], ref["name"]), None)
            return
        if delta.kind == "Node":  # a node added, removed or relabelled: every DaemonSet looks again
            for namespace, name in self.informer.store["DaemonSet"]:
                self._mark(("DaemonSet", namespace, name), None)
            return
        if delta.kind == "Pod":
            self._index_pod(delta)
            ref = controller_ref(delta.obj) or (controller_ref(delta.old) if delta.old else None)
            if ref is not None and ref.get("kind") in self.workloads:
                self._mark((ref["kind"], delta.key[0], ref["name"]), delta.trace_id)
            if ref is not None and ref.get("kind") == "ReplicaSet" and delta.type == "DELETED":
                self._mark_deployment_of(delta.key[0], ref["name"], delta.trace_id)  # Recreate waits for it
            return
        self._mark((delta.kind, *delta.key), delta.trace_id)
        ref = controller_ref(delta.obj)
        if delta.kind == "ReplicaSet" and ref is not None and ref.get("kind") == "Deployment":
            self._mark(("Deployment", delta.key[0], ref["name"]), delta.trace_id)
        if delta.kind == "Job" and ref is not None and ref.get("kind") == "CronJob":
            self._mark(("CronJob", delta.key[0], ref["name"]), None)  # its Job ran, finished or went

    def _mark_deployment_of(self, namespace: str, replica_set: str, trace_id: str | None) -> None:
        rs = self.informer.get("ReplicaSet", namespace, replica_set)
        owner = controller_ref(rs) if rs is not None else None
        if owner is not None and owner.get("kind") == "Deployment":
            self._mark(("Deployment", namespace, owner["name"]), trace_id)

    def workloads_changed(self) -> bool:
        """A workload was written since the informer last read (a scale, an edit, a deletion): a
        long creation yields to it, so the manager reads and acts on it first."""
        return nudge.latest_revision_of(self.cluster_name, self.workloads) > (self.informer.revision or 0)

    def requeue(self, kind: str, namespace: str, name: str, trace_id: str | None) -> None:
        """Sync this owner again on the next pass (it has more to do than one sync does)."""
        self._mark((kind, namespace, name), trace_id)

    def _mark(self, key: OwnerKey, trace_id: str | None) -> None:
        if key not in self.dirty:  # the workqueue counts an add once until the item is taken
            queue = QUEUE_NAMES[key[0]]
            counters.add(self.cluster_name, counters.QUEUE_ADDS, {"name": queue})
            self.added.setdefault(key, time.perf_counter())
            self.dirty[key] = trace_id
            depth = sum(1 for k in self.dirty if k[0] == key[0])
            counters.set_gauge(self.cluster_name, counters.QUEUE_DEPTH, {"name": queue}, depth)
        elif trace_id is not None:
            self.dirty[key] = trace_id

    def _index_pod(self, delta: Delta) -> None:
        if delta.old is not None:
            old_ref = controller_ref(delta.old)
            if old_ref is not None:
                self.pods_by_owner.get(old_ref["uid"], {}).pop(delta.key, None)
        ref = controller_ref(delta.obj)
        self.orphans.pop(delta.key, None)
        if delta.type == "DELETED":
            return
        if ref is not None:
            self.pods_by_owner.setdefault(ref["uid"], {})[delta.key] = delta.obj
        elif is_active(delta.obj):
            self.orphans[delta.key] = delta.obj
            self._mark_adopters(delta)

    def _mark_adopters(self, delta: Delta) -> None:
        """An orphan pod: the controllers whose selector matches it will adopt it."""
        namespace = delta.key[0]
        for kind in ("ReplicationController", "ReplicaSet"):
            for (owner_namespace, name), owner in self.informer.store[kind].items():
                if owner_namespace == namespace and self.controllers[kind].selects(
                    owner, labels_of(delta.obj)
                ):
                    self._mark((kind, namespace, name), delta.trace_id)

    # -- what controllers use ----------------------------------------------------------------
    def owned_pods(self, owner: dict) -> list[dict]:
        return list(self.pods_by_owner.get(owner["metadata"]["uid"], {}).values())

    def assume_pod(self, pod: dict) -> None:
        """Our own create, seen before its event arrives (the event then upserts the same object)."""
        key = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])
        self.informer.store["Pod"][key] = pod
        self._index_pod(Delta("ADDED", "Pod", pod, None, 0, None))

    def forget_pod(self, pod: dict) -> None:
        key = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])
        self.informer.store["Pod"].pop(key, None)
        self._index_pod(Delta("DELETED", "Pod", pod, pod, 0, None))

    def assume(self, obj: dict) -> None:
        key = (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
        self.informer.store[obj["kind"]][key] = obj

    def needs_steps(self, trace_id: str | None, kind: str, namespace: str, name: str) -> bool:
        """Steps 5–6 belong to the controller of the trace's own object (a pod's replacement has a
        trace of its owner: _story)."""
        if trace_id is None or trace_id in self.stepped:
            return False
        trace = FlowTrace.objects.filter(pk=trace_id).values("kind", "namespace", "name", "verb").first()
        if trace is None or FlowStep.objects.filter(trace_id=trace_id, step=5).exists():
            self.stepped.add(trace_id)
            return False
        return (trace["kind"], trace["namespace"], trace["name"]) == (kind, namespace, name)

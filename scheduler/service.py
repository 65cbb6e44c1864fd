"""The scheduler: list-watch pods and nodes, keep the engine's snapshot, place pods and bind them.

"获取 spec.nodeName 为空的 pod，对每个 pod 都会创建一个 binding": every pending pod for
`default-scheduler` goes through the engine (`scheduler.engine.schedule`); the result is bound
through the API server's pods/binding, recorded as a SchedulingAttempt and announced by an Event.
"""

from __future__ import annotations

import asyncio
import copy

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import kind_info
from cluster.client import counters, event_recorder
from cluster.client.informer import Delta, Informer, db
from cluster.flow import gate, podevent
from cluster.flow.recorder import StepSpec, record_step, record_steps
from cluster.models import Cluster, FlowTrace
from k8s import clock
from scheduler import attempt_rows, batch, configuration, explanations, texts, together, volume_binding
from scheduler.batch import INLINE_MAX_NODES
from scheduler.engine import Snapshot, schedule
from scheduler.engine.compact import to_compact
from scheduler.engine.config import default_config
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.preemption import PodDisruptionBudget
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduler.engine.queueing_hints import ADD, DELETE, POD, UPDATE, ClusterEvent, node_events, pod_events
from scheduler.engine.snapshot import STORAGE_KINDS
from scheduler.explanations import Explainer
from scheduler.flowsteps import PREEMPTION, SCHEDULER
from scheduler.models import SchedulingAttempt
from scheduler.queue import (
    MAX_UNSCHEDULABLE_SECONDS,
    UNSCHEDULABLE,
    QueuedPod,
    SchedulingQueue,
    describe_entry,
)

MERGE_PATCH = "application/merge-patch+json"


# The owners kube-scheduler's default spreading (SelectorSpread's "default" constraints) looks at:
# ReplicationControllers and ReplicaSets, not every workload kind (docs/scheduler.md).
SPREADING_OWNER_KINDS = ("ReplicationController", "ReplicaSet")
PDB_KIND = "PodDisruptionBudget"  # policy/v1: watched when the registry serves it


_PLURALS = {"StorageClass": "StorageClasses"}
CONFIG_EVENT_REASON = "InvalidConfiguration"
RECONFIGURED_WHY = {
    "en": "The scheduler's configuration (ConfigMap kube-system/kube-scheduler) changed, so it is "
    "tried again under the new profiles.",
    "zh": "调度器的配置（ConfigMap kube-system/kube-scheduler）已更改，因此按新的调度配置重新尝试。",
}


def _watched_kinds() -> tuple[str, ...]:
    """Pods and Nodes, the spreading owners, and the kinds the registry serves of those the volume
    plugins and preemption read."""
    optional = (PDB_KIND, *STORAGE_KINDS)
    watched = ("Node", "Pod", *SPREADING_OWNER_KINDS, *(kind for kind in optional if kind_info(kind)))
    return (*watched, "ConfigMap")  # kube-system/kube-scheduler: the configuration


_SAMPLE_NODE = {
    "metadata": {"name": "warm-up", "labels": {"kubernetes.io/hostname": "warm-up"}},
    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}},
}
_SAMPLE_POD = {
    "metadata": {"name": "warm-up", "namespace": "default", "uid": "warm-up"},
    "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]},
}


def _rehearse(profile) -> None:
    decision = schedule(copy.deepcopy(_SAMPLE_POD), Snapshot.from_objects([_SAMPLE_NODE]), profile)
    to_compact(decision)


def _is_terminal(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def preemption_condition_message(profile: str = DEFAULT_SCHEDULER_NAME) -> str:
    """The DisruptionTarget condition's message names the preempting profile's scheduler."""
    return f"{profile}: preempting to accommodate a higher priority pod"


def _scheduler_name(pod: dict) -> str:
    """The profile (and Event source) that schedules `pod`."""
    return (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER_NAME


def _nominated_node_of(pod: dict) -> str:
    return (pod.get("status") or {}).get("nominatedNodeName") or ""


class Scheduler:
    component = "scheduler"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        # Like kube-scheduler, it also watches the controllers that select pods: their selectors
        # turn on PodTopologySpread's default constraints (spread replicas by host and zone).
        watched = _watched_kinds()
        names = [_PLURALS.get(kind, f"{kind}s") for kind in ("Pod", "Node", *watched[2:])]
        self.informer = Informer(
            cluster_name, self.component, watched, f"{', '.join(names[:-1])} and {names[-1]}", ""
        )
        self.workloads: dict[tuple[str, str, str], dict] = {}
        # PodDisruptionBudgets preemption counts violations of, read generically from the watch.
        self.pdbs: dict[tuple[str, str], PodDisruptionBudget] = {}
        self.cluster: Cluster | None = None
        self.snapshot = Snapshot()
        self.bound: dict[tuple[str, str], PodInfo] = {}
        self.queue = SchedulingQueue()
        # Pending pods nominated to a node (status.nominatedNodeName): upstream's PodNominator.
        self.nominated: dict[tuple[str, str], tuple[PodInfo, str]] = {}
        # The profiles of kube-system/kube-scheduler's config.yaml (the last valid one), by name.
        self.config = default_config()
        # Pending pods for a schedulerName no profile runs: not ours, untouched (no events) until
        # a configuration gains that profile.
        self.unowned: dict[tuple[str, str], tuple[dict, str | None]] = {}
        # Where the search for feasible nodes starts (upstream's nextStartNodeIndex).
        self.next_start_index = 0
        # Attempts of the current pass not written yet: with the binding, or when the queue is
        # drained. Their explanations are built later (scheduler/explanations.py).
        self.unsaved: list[tuple[SchedulingAttempt, object]] = []
        self.explainer = Explainer(cluster_name)
        # Volume bindings reserved for pods whose binding is not written yet (VolumeBinding's PreBind).
        self.volume_plans: dict[tuple[str, str], volume_binding.Plan] = {}

    async def warm_up(self) -> None:
        """Pay the first cycle's one-off costs (loading every plugin, the first use of each code
        path) at start-up, not with the first pod a student creates: one cycle of a sample pod on
        a sample node, thrown away."""
        await asyncio.to_thread(_rehearse, next(iter(self.config.profiles.values())))

    async def step(self) -> bool:
        deltas = [] if self.informer.up_to_date() else await db(self._sync)()
        for delta in deltas:
            self._observe(delta)
        self.queue.flush()
        worked = bool(deltas) or self.informer.behind
        while (entry := self.queue.pop()) is not None:
            if await batch.gate_open(self.cluster_name):
                await batch.schedule_all(self, batch.take(self.queue, entry))
            elif entry.trace_id is not None:
                await together.schedule_together(self, entry)
            else:
                await self.schedule_one(entry)
            worked = True
        # The queue is drained: the attempts of this pass are saved now, so an attempt is never
        # read after its binding without it (one batch per pass, not one insert per pod).
        await self.save_attempts()
        for queue, size in self.queue.sizes().items():
            counters.set_gauge(self.cluster_name, counters.PENDING_PODS, {"queue": queue}, size)
        return worked

    async def catch_up(self) -> None:
        """Read what the watch brought meanwhile (while a step waited at the gate)."""
        deltas = [] if self.informer.up_to_date() else await db(self._sync)()
        for delta in deltas:
            self._observe(delta)
        self.queue.flush()

    def _take_unsaved(self) -> list[tuple[SchedulingAttempt, object]]:
        batch, self.unsaved = self.unsaved, []
        return batch

    async def save_attempts(self) -> None:
        """Write the pending attempts in one batch; their explanations follow in a lull."""
        unsaved = self._take_unsaved()
        if unsaved:
            self.explainer.add(await db(attempt_rows.insert)(unsaved))

    def next_wakeup(self) -> float | None:
        return self.queue.next_wakeup()

    def flush_due(self) -> float | None:
        """Seconds until a pod left unschedulable for 5 minutes moves (the queue's flush, which a
        polling loop would reach anyway; an embedded control plane waits for it)."""
        since = [e.unschedulable_since for e in self.queue.entries.values() if e.queue == UNSCHEDULABLE]
        if not since:
            return None
        return max(0.0, min(since) + MAX_UNSCHEDULABLE_SECONDS - clock.monotonic())

    def _sync(self) -> list[Delta]:
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
            self.explainer.register(self.cluster.pk)
        return self.informer.sync()

    # -- the snapshot and the queue follow the watch ------------------------------------------
    def profile_for(self, pod: dict):
        """The profile that schedules `pod` (queued pods always have one: see _reconfigure)."""
        return self.config.profile_for(_scheduler_name(pod))

    def schedule_pod(self, pod: dict, **kwargs):
        """One cycle of `pod` under its profile, from the search's round-robin start."""
        decision = schedule(
            pod, self.snapshot, self.profile_for(pod), start_index=self.next_start_index, **kwargs
        )
        if decision.node_names:
            self.next_start_index = (self.next_start_index + decision.processed) % len(decision.node_names)
        return decision

    def _reconfigure(self, delta: Delta) -> None:
        """A new config.yaml takes effect at once; one that does not validate is refused with a
        Warning Event on the ConfigMap, and the last valid configuration stays."""
        reading = configuration.read(None if delta.type == "DELETED" else delta.obj)
        if reading.config is None:
            if self.cluster is not None:
                event_recorder.record(
                    self.cluster,
                    delta.obj,
                    CONFIG_EVENT_REASON,
                    configuration.refused_message(reading.error or ""),
                    self._actor(None),
                    type_="Warning",
                    component=DEFAULT_SCHEDULER_NAME,
                )
            return
        self.config = reading.config
        self.queue.initial_backoff = float(reading.config.pod_initial_backoff_seconds)
        self.queue.max_backoff = float(reading.config.pod_max_backoff_seconds)
        for key, entry in list(self.queue.entries.items()):
            if self.profile_for(entry.pod) is None:  # its profile is gone: no longer ours
                self.queue.remove(key)
                self.unowned[key] = (entry.pod, entry.trace_id)
        for key, (pod, trace_id) in list(self.unowned.items()):
            if self.profile_for(pod) is not None:
                del self.unowned[key]
                self.queue.add(pod, trace_id)
        # Plugins or weights may have changed: every waiting pod is tried again under the new
        # profiles, as a restarted kube-scheduler would try every pending pod.
        for key in list(self.queue.unschedulable):
            self.queue.activate(key, {"plugin": "", "event": "configuration", "why": RECONFIGURED_WHY})

    def _observe(self, delta: Delta) -> None:
        if delta.kind == "ConfigMap":
            if configuration.is_config_map(delta.obj):
                self._reconfigure(delta)
            return
        if delta.kind in STORAGE_KINDS:
            if delta.type == "DELETED":
                self.snapshot.storage.remove(delta.kind, delta.obj)
                event = ClusterEvent(delta.kind, DELETE, delta.obj, None)
            else:
                self.snapshot.storage.upsert({**delta.obj, "kind": delta.kind})
                event = ClusterEvent(delta.kind, ADD if delta.old is None else UPDATE, delta.old, delta.obj)
            self.queue.on_event(event)
            return
        if delta.kind == PDB_KIND:
            if delta.type == "DELETED":
                self.pdbs.pop(delta.key, None)
            else:
                self.pdbs[delta.key] = PodDisruptionBudget.of(delta.obj)
            return
        if delta.kind in SPREADING_OWNER_KINDS:
            self._observe_workload(delta)
            return
        if delta.kind == "Node":
            if delta.type == "DELETED":
                self.snapshot.remove_node(delta.key[1])
                events = node_events(delta.old or delta.obj, None)
            else:
                self.snapshot.upsert_node(delta.obj)
                events = node_events(delta.old, delta.obj)
            for event in events:
                self.queue.on_event(event)
            return
        key, pod = delta.key, delta.obj
        node = (pod.get("spec") or {}).get("nodeName")
        if delta.type == "DELETED" or (node and _is_terminal(pod)):
            self.unowned.pop(key, None)
            self.queue.remove(key)
            self.nominated.pop(key, None)
            if key in self.bound:
                self.snapshot.remove_pod(self.bound.pop(key))
            # Freed resources, ports or spread: the hints of the waiting pods' rejectors decide.
            self.queue.on_event(ClusterEvent(POD, DELETE, pod, None))
            return
        if node:
            self.unowned.pop(key, None)
            self.queue.remove(key)
            self.nominated.pop(key, None)
            known = self.bound.get(key)
            self._account_bound(key, pod, node)
            events = [ClusterEvent(POD, ADD, None, pod)] if known is None else pod_events(known.pod, pod)
            for event in events:
                self.queue.on_event(event)
        elif self.profile_for(pod) is None:
            self.unowned[key] = (pod, delta.trace_id)  # another scheduler's: no event, no attempt
        else:
            self.queue.add(pod, delta.trace_id)
            nominated = _nominated_node_of(pod)
            if nominated:
                self.nominated[key] = (PodInfo.of(pod), nominated)
            else:
                self.nominated.pop(key, None)

    def _observe_workload(self, delta: Delta) -> None:
        key = (delta.kind, *delta.key)
        if delta.type == "DELETED":
            self.workloads.pop(key, None)
        else:
            selector = (delta.obj.get("spec") or {}).get("selector")
            self.workloads[key] = {"namespace": delta.key[0], "selector": selector, "kind": delta.kind}
        self.snapshot.workload_selectors = list(self.workloads.values())

    def _account_bound(self, key: tuple[str, str], pod: dict, node: str) -> None:
        known = self.bound.get(key)
        if known is not None:
            if known.node_name == node and _preemption_facts(known.pod) == _preemption_facts(pod):
                return  # our own assumption confirmed by the watch, or a change no plugin reads
            self.snapshot.remove_pod(known)
        self.bound[key] = self.snapshot.add_pod(pod)

    # -- one scheduling cycle ------------------------------------------------------------------
    async def schedule_one(self, entry: QueuedPod) -> None:
        trace_id = entry.trace_id
        if trace_id is not None and not await gate.is_open(self.cluster_name, trace_id):
            await self._deliver_create_event(entry)
        # A retry of a pod that waited for the cluster to change goes ahead at once: the change
        # (a label, a freed node) moved it, and step mode's Next could not have (the page says so).
        if not entry.attempts:
            await gate.before_step(self.cluster_name, trace_id, 9)
        pod = entry.pod
        # Other pods nominated to a node hold their room there (upstream's addNominatedPods).
        nominated = [(info, node) for key, (info, node) in self.nominated.items() if key != entry.key]
        # CPU-bound and pure: for a big cluster off the event loop so websockets stay responsive
        # (nothing else touches this snapshot while the cycle runs); a classroom's few nodes take
        # less time than the trip to a thread and back.
        pdbs = list(self.pdbs.values())
        if len(self.snapshot) <= INLINE_MAX_NODES:
            decision = self.schedule_pod(pod, nominated=nominated, pdbs=pdbs)
        else:
            decision = await asyncio.to_thread(self.schedule_pod, pod, nominated=nominated, pdbs=pdbs)
        revision = self.informer.revision or 0
        if decision.selected is None:
            await self.failed_cycle(entry, decision, revision)
            return
        self.scheduled(entry, decision, revision)
        node = decision.selected
        self.reserve_volumes(entry, node)
        if await gate.is_open(self.cluster_name, trace_id):
            # Nobody could see steps 9–11 apart. The attempts go in the same trip to the database
            # thread, ahead of the binding.
            bound = await self._place_saving(entry, decision, node)
        else:
            await db(self._record_placement)(entry, decision, node, (9,))
            await gate.before_step(self.cluster_name, trace_id, 10)
            await db(self._record_placement)(entry, decision, node, (10,))
            await gate.before_step(self.cluster_name, trace_id, 11)
            bound = await db(self._bind)(entry, node)
        if bound:
            assumed = copy.deepcopy(pod)
            assumed["spec"]["nodeName"] = node
            known = self.bound.get(entry.key)
            self._account_bound(entry.key, assumed, node)
            if known is None:
                self.queue.on_event(ClusterEvent(POD, ADD, None, assumed))

    async def failed_cycle(self, entry: QueuedPod, decision, revision: int) -> None:
        """No node fits: the pod waits in the queue; the attempt, the event, the pod's condition
        and any preemption are written."""
        woken_by, previous_message = entry.woken_by, entry.last_message
        self.queue.park(entry, decision.message or "", decision.rejecting_plugins())
        queue = {**describe_entry(entry), "wokenBy": woken_by}
        cleared = await db(self._unschedulable)(entry, decision, revision, queue, previous_message)
        self._after_preemption(entry, decision, cleared)

    def scheduled(self, entry: QueuedPod, decision, revision: int) -> None:
        """A node was picked: the pod leaves the queue, its attempt waits to be saved."""
        self.queue.done(entry)
        self.nominated.pop(entry.key, None)
        queue = {"queue": "bound", "attempts": entry.attempts + 1, "wokenBy": entry.woken_by}
        message = _assigned(entry.pod, decision.selected)
        self._attempt(entry, decision, revision, SchedulingAttempt.SCHEDULED, message, queue)

    def _after_preemption(self, entry: QueuedPod, decision, cleared: list[tuple[str, str]]) -> None:
        """Keep the nominator in step with what the failed cycle wrote to the API."""
        preemption = decision.preemption
        if preemption is None or not preemption.eligible:
            return
        node = preemption.nominated_node
        # A copy: the informer's object stays as the API served it.
        status = {k: v for k, v in (entry.pod.get("status") or {}).items() if k != "nominatedNodeName"}
        if node:
            status["nominatedNodeName"] = node
        entry.pod, entry._info = {**entry.pod, "status": status}, None
        if node:
            self.nominated[entry.key] = (PodInfo.of(entry.pod), node)
        else:
            self.nominated.pop(entry.key, None)
        for key in cleared:
            info_node = self.nominated.pop(key, None)
            if info_node is not None:
                why = {
                    "en": f"Its nomination to {info_node[1]} was cleared: a higher-priority pod "
                    "preempted there.",
                    "zh": f"它对 {info_node[1]} 的提名被清除：更高优先级的 Pod 在该节点上发起了抢占。",
                }
                self.queue.activate(
                    key, {"plugin": "DefaultPreemption", "event": "nomination cleared", "why": why}
                )

    async def _deliver_create_event(self, entry: QueuedPod) -> None:
        """Step 8, with a pace or in step mode: the pod's Create event reaches the scheduler."""
        meta = entry.pod["metadata"]
        revision = await db(podevent.pending)(entry.trace_id, meta.get("namespace") or "", meta["name"])
        if revision is None:
            return
        await gate.before_step(self.cluster_name, entry.trace_id, 8)
        await db(podevent.record)(entry.trace_id, entry.pod, revision)

    def _actor(self, trace_id: str | None) -> Actor:
        trace = FlowTrace(pk=trace_id) if trace_id else None
        return Actor("scheduler", DEFAULT_SCHEDULER_NAME, trace, flow=SCHEDULER)

    def _attempt(
        self, entry: QueuedPod, decision, revision: int, result: str, message: str, queue: dict
    ) -> None:
        """Keep the attempt for the next batch; `queue` is where the pod went after it and what
        had woken it for this attempt."""
        meta = entry.pod["metadata"]
        attempt = SchedulingAttempt(
            cluster=self.cluster,
            namespace=meta.get("namespace", ""),
            pod=meta["name"],
            pod_uid=meta.get("uid", ""),
            attempt=queue.get("attempts") or entry.attempts + 1,
            queue=queue,
            result=result,
            node=decision.selected or "",
            message=message,
            revision=revision,
            nodes=len(decision.node_names),
            trace_id=entry.trace_id,
        )
        self.unsaved.append((attempt, decision))
        outcome = "scheduled" if result == SchedulingAttempt.SCHEDULED else "unschedulable"
        labels = {"profile": decision.profile, "result": outcome}
        counters.add(self.cluster_name, counters.SCHEDULE_ATTEMPTS, labels)
        if decision.preemption is not None:  # PostFilter ran (DefaultPreemption counts each run)
            counters.add(self.cluster_name, counters.PREEMPTION_ATTEMPTS, {})

    async def _place_saving(self, entry: QueuedPod, decision, node: str) -> bool:
        attempts = self._take_unsaved()
        bound, saved = await db(self._place)(entry, decision, node, attempts)
        self.explainer.add(saved)
        return bound

    def _place(self, entry: QueuedPod, decision, node: str, attempts: list) -> tuple[bool, list]:
        """Steps 9 and 10 (the node picked, the binding sent), then the binding itself (step 11);
        `attempts` are saved first, so none is read after its binding without it."""
        with transaction.atomic():
            saved = attempt_rows.insert(attempts)
            self._record_placement(entry, decision, node, (9, 10))
            return self._bind(entry, node), saved

    def _record_placement(self, entry: QueuedPod, decision, node: str, steps: tuple[int, ...]) -> None:
        if not entry.trace_id:
            return
        pod = entry.pod
        texts_by_step = {9: texts.picked(pod, decision), 10: texts.binding(pod, node)}
        specs = [StepSpec(step, *texts_by_step[step], _obj(pod), node) for step in steps]
        record_steps(entry.trace_id, specs)

    def reserve_volumes(self, entry: QueuedPod, node: str) -> None:
        """VolumeBinding's Reserve: the volumes the pod's claims get on `node`, assumed at once."""
        plan = volume_binding.reserve(self.snapshot, entry.pod, node)
        if plan is not None:
            self.volume_plans[entry.key] = plan

    def _bind(self, entry: QueuedPod, node: str) -> bool:
        meta = entry.pod["metadata"]
        actor = self._actor(entry.trace_id)
        plan = self.volume_plans.pop(entry.key, None)
        if plan is not None:
            volume_binding.pre_bind(self.cluster, plan, actor)
        try:
            pod = api.bind(self.cluster, meta.get("namespace"), meta["name"], node, actor)
        except ApiError:
            return False  # deleted, or bound by someone else meanwhile
        message = _assigned(entry.pod, node)
        event_recorder.record(
            self.cluster, pod, "Scheduled", message, actor, component=_scheduler_name(entry.pod)
        )
        return True

    def _unschedulable(
        self, entry: QueuedPod, decision, revision: int, queue: dict, previous_message: str
    ) -> list[tuple[str, str]]:
        """handleSchedulingFailure: the attempt, the FailedScheduling event, PodScheduled=False and
        the nomination; then, when a node was nominated, the preemption's API calls (in v1.33 the
        SchedulerAsyncPreemption gate is on: they run after the cycle, outside it). Returns the
        lower-priority pods whose nomination to that node was cleared."""
        message = decision.message or ""
        self._attempt(entry, decision, revision, SchedulingAttempt.UNSCHEDULABLE, message, queue)
        actor = self._actor(entry.trace_id)
        pod = entry.pod
        event_recorder.record(
            self.cluster,
            pod,
            "FailedScheduling",
            message,
            actor,
            type_="Warning",
            component=decision.profile,
        )
        preemption = decision.preemption
        nomination: str | bool | None = False  # False: leave status.nominatedNodeName as it is
        if preemption is not None and preemption.eligible:
            nomination = preemption.nominated_node  # None clears a stale nomination
        self._set_unschedulable_condition(pod, message, actor, nomination)
        if entry.trace_id and message != previous_message:
            if preemption is not None and preemption.nominated_node:
                en, zh = texts.preempting(pod, message, preemption.nominated_node, preemption.victims)
            else:
                en, zh = texts.unschedulable(pod, message)
            record_step(entry.trace_id, 9, detail_en=en, detail_zh=zh, obj=_obj(pod), outcome="waiting")
        if preemption is None or not preemption.nominated_node:
            return []
        return self._preempt(pod, preemption, actor)

    def _preempt(self, preemptor: dict, preemption, actor: Actor) -> list[tuple[str, str]]:
        """prepareCandidate: each victim gets DisruptionTarget=True and is deleted, with the
        Preempted event; lower-priority pods nominated to the node lose their nomination."""
        node = preemption.nominated_node
        uid = (preemptor.get("metadata") or {}).get("uid", "")
        for victim in preemption.victims:
            try:
                current = api.get(self.cluster, "Pod", victim.namespace, victim.name)
            except ApiError:
                continue  # already gone
            if (current.get("metadata") or {}).get("deletionTimestamp"):
                continue  # graceful deletion already started
            # Not under the preemptor's trace: the victim's condition, its deletion (and a
            # controller's replacement of it) belong to the victim's own story; written under the
            # preemptor's, the replacement's steps joined its trace, which then never completed.
            self._mark_disruption_target(current, self._actor(None), _scheduler_name(preemptor))
            try:
                deleting = self._preempting_actor(preemptor, node, actor.trace.pk if actor.trace else "")
                api.delete(self.cluster, "Pod", victim.namespace, victim.name, deleting)
            except ApiError:
                continue
            event_recorder.record(
                self.cluster,
                current,
                "Preempted",
                f"Preempted by pod {uid} on node {node}",
                actor,
                component=_scheduler_name(preemptor),
                related=preemptor,
                action="Preempting",
            )
        priority = int((preemptor.get("spec") or {}).get("priority") or 0)
        cleared = []
        for key, (info, nominated_node) in list(self.nominated.items()):
            if nominated_node != node or info.priority >= priority or key == _key(preemptor):
                continue
            patch = {"status": {"nominatedNodeName": None}}
            untraced = self._actor(None)  # another pod's story, not the preemptor's
            try:
                api.patch(self.cluster, "Pod", key[0], key[1], patch, MERGE_PATCH, untraced, "status")
            except ApiError:
                continue
            cleared.append(key)
        return cleared

    def _preempting_actor(self, preemptor: dict, node: str, cause: str = "") -> Actor:
        """Who deletes a victim: the scheduler, for the preemptor. The victim's deletion starts a
        trace of its own (verb preempt) that names the preemptor and links back to its trace
        (`cause`), and its ending says why."""
        actor = self._actor(None)
        actor.by, actor.subresource, actor.cause = DEFAULT_SCHEDULER_NAME, "preemption", cause
        actor.flow = PREEMPTION
        actor.reason = texts.preempted_by(preemptor, node)
        return actor

    def _mark_disruption_target(self, pod: dict, actor: Actor, profile: str) -> None:
        conditions = [
            c
            for c in (pod.get("status") or {}).get("conditions") or []
            if c.get("type") != "DisruptionTarget"
        ]
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": now_rfc3339(),
                "reason": "PreemptionByScheduler",
                "message": preemption_condition_message(profile),
            }
        )
        meta = pod["metadata"]
        patch = {"status": {"conditions": conditions}}
        try:
            api.patch(
                self.cluster, "Pod", meta.get("namespace"), meta["name"], patch, MERGE_PATCH, actor, "status"
            )
        except ApiError:
            return

    def _set_unschedulable_condition(
        self, pod: dict, message: str, actor: Actor, nomination: str | bool | None = False
    ) -> None:
        """kube-scheduler reports the reason on the pod: PodScheduled=False, Unschedulable, the
        message; and, after preemption, status.nominatedNodeName (set, or cleared with None)."""
        status = pod.get("status") or {}
        current = {c.get("type"): c for c in status.get("conditions") or []}
        existing = current.get("PodScheduled")
        same_condition = (
            existing and existing.get("reason") == "Unschedulable" and existing.get("message") == message
        )
        nomination_changed = nomination is not False and (nomination or "") != (
            status.get("nominatedNodeName") or ""
        )
        if same_condition and not nomination_changed:
            return
        patch: dict = {"status": {}}
        if not same_condition:
            condition = {
                "type": "PodScheduled",
                "status": "False",
                "lastProbeTime": None,
                "lastTransitionTime": now_rfc3339(),
                "reason": "Unschedulable",
                "message": message,
            }
            others = [c for t, c in current.items() if t != "PodScheduled"]
            patch["status"]["conditions"] = [*others, condition]
        if nomination_changed:
            patch["status"]["nominatedNodeName"] = nomination or None
        meta = pod["metadata"]
        try:
            api.patch(
                self.cluster, "Pod", meta.get("namespace"), meta["name"], patch, MERGE_PATCH, actor, "status"
            )
        except ApiError:
            return

    def describe_queue(self, namespace: str, name: str) -> dict | None:
        """The pod's place in the scheduling queue (None when it is not queued)."""
        entry = self.queue.entries.get((namespace, name))
        return None if entry is None else describe_entry(entry)


def attempts(cluster: Cluster, namespace: str, pod: str, limit: int | None = 20) -> list[dict]:
    """The pod's scheduling attempts, newest first, each with `decision` = the engine's Decision.to_json()."""
    explanations.ready(cluster, namespace, pod)
    rows = SchedulingAttempt.objects.filter(cluster=cluster, namespace=namespace, pod=pod)
    return [row.to_json() for row in (rows[:limit] if limit else rows)]


def _assigned(pod: dict, node: str) -> str:
    meta = pod["metadata"]
    return f"Successfully assigned {meta.get('namespace', 'default')}/{meta['name']} to {node}"


def _preemption_facts(pod: dict) -> tuple:
    """What of a bound pod the snapshot must follow besides its node: the labels (filters and
    scores read them), and the start time and deletion that preemption reads (the kubelet sets
    status.startTime after the binding)."""
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    return (meta.get("labels") or {}, status.get("startTime"), meta.get("deletionTimestamp"))


def _key(pod: dict) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    return meta.get("namespace", ""), meta.get("name", "")


def _obj(pod: dict) -> tuple[str, str, str]:
    meta = pod["metadata"]
    return "Pod", meta.get("namespace", ""), meta["name"]

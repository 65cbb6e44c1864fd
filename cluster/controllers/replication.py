"""The Replication Controller (and, by subclassing, the ReplicaSet controller): keep spec.replicas pods.

"一旦副本数量少于 RC 中定义的数量，RC 会自动创建副本" — it creates pods when there are fewer than
spec.replicas, deletes the surplus when there are more, and recreates a pod that was deleted.
"""

from __future__ import annotations

import copy

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers import texts
from cluster.controllers.host import ControllerHost
from cluster.controllers.owned import active_pods, live_owner, wanted_replicas
from cluster.controllers.pods import (
    MERGE_PATCH,
    deletion_rank,
    is_active,
    is_available,
    is_ready,
    labels_of,
    owner_reference,
    pod_from_template,
    random_suffix,
)
from cluster.flow import endings, gate
from cluster.flow import texts as flow_texts
from cluster.flow.recorder import record_step, skip_steps
from cluster.models import FlowTrace
from database.sqlite import memo
from k8s import clock

# Pods created in one hop to the database thread at most, so the scheduler and kubelets get their
# turns while a large scale-up is still being created.
MAX_BATCH = 32
# Pods created by one sync at most (the upstream controller's burstReplicas): an RC of 10^9
# replicas asks for pods a burst at a time (each failing against the quota ends the burst). The
# pods it created mark it for another sync as their events arrive, which goes on from there; a
# burst that failed creates nothing, so nothing spins until something changes.
BURST_REPLICAS = 500


class ReplicationManager:
    kind = "ReplicationController"
    title = "Replication Controller"
    event_component = "replication-controller"

    def __init__(self, manager: ControllerHost) -> None:
        self.cm = manager

    def selects(self, owner: dict, labels: dict) -> bool:
        selector = (owner.get("spec") or {}).get("selector") or {}
        return bool(selector) and all(labels.get(k) == v for k, v in selector.items())

    async def sync(self, owner: dict, trace_id: str | None) -> None:
        meta = owner["metadata"]
        namespace = meta.get("namespace", "")
        orphans = [
            pod
            for (pod_namespace, _), pod in self.cm.orphans.items()
            if pod_namespace == namespace and self.selects(owner, labels_of(pod))
        ]
        if orphans and not meta.get("deletionTimestamp"):
            await db(self._adopt)(owner, orphans, trace_id)
        adopted = {pod["metadata"]["name"] for pod in orphans}
        pods = [pod for pod in self.cm.owned_pods(owner) if is_active(pod)]
        wanted = int((owner.get("spec") or {}).get("replicas", 1))
        # A set being deleted (kept by finalizers) manages no replicas, as syncReplicaSet.
        diff = 0 if meta.get("deletionTimestamp") else wanted - len(pods)
        steps = trace_id is not None and trace_id not in self.cm.stepped
        if steps:  # a database hop only for a trace this manager has not stepped yet
            steps = await db(self.cm.needs_steps)(
                trace_id, self.kind, meta.get("namespace", ""), meta["name"]
            )
        if steps:
            await self._record_decision(owner, trace_id, len(pods), wanted)
        if diff > 0:
            await self._create_pods(owner, trace_id, diff)
        elif diff < 0:
            victims = sorted(pods, key=deletion_rank)[:-diff]
            # Why each goes: its trace ends with it ("it matched selector app=nginx and ...").
            reasons = {
                p["metadata"]["name"]: texts.surplus_deleted(
                    owner, p["metadata"]["name"], len(pods), wanted, p["metadata"]["name"] in adopted
                )
                for p in victims
            }
            await self._delete_pods(owner, victims, trace_id, reasons)
        if steps and diff <= 0:
            en, zh = texts.no_new_pod(self.title, diff)
            await db(skip_steps)(FlowTrace(pk=trace_id), range(7, 14), en, zh, obj=_ref(owner))
        if self._status_changed(owner):  # most syncs of a burst change no count: no trip then
            await db(self._update_status)(owner, trace_id)
        self._recheck_availability(owner, wanted)

    def _recheck_availability(self, owner: dict, wanted: int) -> None:
        """Every replica ready but not yet available (minReadySeconds): sync again after
        minReadySeconds, as the ReplicaSet controller's AddAfter does, to count them available."""
        min_ready = int((owner.get("spec") or {}).get("minReadySeconds") or 0)
        if not min_ready:
            return
        status = self.compute_status(owner)
        if status.get("readyReplicas", 0) == wanted and status.get("availableReplicas", 0) != wanted:
            meta = owner["metadata"]
            self.cm.requeue_after(self.kind, meta.get("namespace", ""), meta["name"], float(min_ready))

    async def _record_decision(self, owner: dict, trace_id: str, have: int, wanted: int) -> None:
        cluster = self.cm.cluster_name
        await gate.before_step(cluster, trace_id, 5)
        en, zh = texts.event_received(owner)
        await db(record_step)(trace_id, 5, detail_en=en, detail_zh=zh, obj=_ref(owner))
        await gate.before_step(cluster, trace_id, 6)
        en, zh = texts.replicas_decided(self.title, owner, have, wanted)
        await db(_record_step_6)(trace_id, en, zh, _ref(owner), max(0, wanted - have))
        self.cm.stepped.add(trace_id)

    async def _create_pods(self, owner: dict, trace_id: str | None, count: int) -> None:
        """Create up to `count` pods in batches growing 1, 2, 4, … (the upstream controller's slow
        start). Each batch re-reads the owner under the cluster lock and creates only what it still
        wants, so a scale-down, a change or a deletion stops the creation at the next batch. At
        pace 0 a batch is one hop to the database thread; with a pace or in step mode the
        replicas wait at the gate for their step 7 once, together, as they go through the steps
        after it together (scheduler/together.py). A pod that cannot be created gets its
        FailedCreate and, as upstream, the rest of the batches are skipped until the next sync."""
        batch, first = 1, True
        count = min(count, BURST_REPLICAS)
        while count > 0:
            size = min(batch, count, MAX_BATCH)
            if first and not await gate.is_open(self.cm.cluster_name, trace_id):
                # One step of the story for all the replicas: one pace, one "next".
                await gate.before_step(self.cm.cluster_name, trace_id, 7)
            first = False
            made = await db(self._create_batch)(owner, trace_id, size)
            if made < size:
                return  # scaled down, changed, deleted or failing: the next sync decides
            count -= size
            batch *= 2
            if count > 0 and self.cm.workloads_changed():
                meta = owner["metadata"]  # news about an owner: read it first, then carry on
                self.cm.requeue(self.kind, meta.get("namespace", ""), meta["name"], trace_id)
                return

    async def _delete_pods(self, owner: dict, pods: list[dict], trace_id: str | None, reasons: dict) -> None:
        for start in range(0, len(pods), MAX_BATCH):
            if not await db(self._delete_batch)(owner, pods[start : start + MAX_BATCH], trace_id, reasons):
                return

    # -- database thread ---------------------------------------------------------------------
    def _create_batch(self, owner: dict, trace_id: str | None, size: int) -> int:
        """Create at most `size` pods, as many as the owner's live row still wants; returns how many."""
        with memo.batch(), transaction.atomic():
            locked = store.lock(self.cm.cluster)
            current = live_owner(locked, owner)
            if current is None:
                return 0
            room = self.room(locked, current)
            made = []
            for _ in range(min(size, room)):
                pod = self._create_pod(current, trace_id)
                if pod is None:
                    break
                made.append(pod)
        # Committed: only now does the informer assume them (a rollback would leave phantoms).
        actor = self.cm.actor(trace_id, self.title)
        for pod in made:
            self.cm.assume_pod(pod)
            message = f"Created pod: {pod['metadata']['name']}"
            event_recorder.record(
                self.cm.cluster, current, "SuccessfulCreate", message, actor, component=self.event_component
            )
        return len(made)

    def room(self, locked, owner: dict) -> int:
        """How many more pods the owner's live row wants now."""
        return wanted_replicas(owner) - active_pods(locked, owner["metadata"]["uid"])

    def _delete_batch(self, owner: dict, pods: list[dict], trace_id: str | None, reasons: dict) -> int:
        """Delete the surplus among `pods` that the owner's live row still does not want."""
        with transaction.atomic():
            locked = store.lock(self.cm.cluster)
            current = live_owner(locked, owner)
            if current is None:
                return 0  # deleted: the cascade took the pods
            surplus = active_pods(locked, current["metadata"]["uid"]) - wanted_replicas(current)
            for pod in pods[: max(surplus, 0)]:
                self._delete_pod(current, pod, trace_id, reasons[pod["metadata"]["name"]])
        return max(surplus, 0)

    def _create_pod(self, owner: dict, trace_id: str | None) -> dict | None:
        """One pod from the template (inside the batch's transaction); None when it failed."""
        template = (owner.get("spec") or {}).get("template") or {}
        actor = self.cm.actor(trace_id, self.title)
        for _attempt in range(5):
            name = f"{owner['metadata']['name']}-{random_suffix()}"
            try:
                return api.create(self.cm.cluster, pod_from_template(owner, template, name), actor)
            except ApiError as error:
                if error.code == 409:
                    continue  # the random name is taken: draw another, as generateName does
                self._failed_create(owner, error, actor)
                return None
        return None

    def _failed_create(self, owner: dict, error: ApiError, actor) -> None:
        if actor.trace is not None:
            detail = flow_texts.failed_create(f"{owner['kind']} {owner['metadata']['name']}", error.message)
            by = f"{owner['kind'].lower()}/{owner['metadata']['name']}"
            endings.fail(actor.trace.pk, by, detail, _ref(owner))
        event_recorder.record(
            self.cm.cluster,
            owner,
            "FailedCreate",
            f"Error creating: {error.message}",
            actor,
            type_="Warning",
            component=self.event_component,
        )

    def _adopt(self, owner: dict, orphans: list[dict], trace_id: str | None) -> None:
        """Pods that match the selector and have no controller become ours (ownerReferences patch)."""
        actor = self.cm.actor(trace_id, self.title)
        for pod in orphans:
            meta = pod["metadata"]
            refs = [*(meta.get("ownerReferences") or []), owner_reference(owner)]
            patch = {"metadata": {"ownerReferences": refs}}
            try:
                adopted = api.patch(
                    self.cm.cluster, "Pod", meta.get("namespace"), meta["name"], patch, MERGE_PATCH, actor
                )
            except ApiError:
                continue  # deleted meanwhile
            self.cm.assume_pod(adopted)

    def _delete_pod(self, owner: dict, pod: dict, trace_id: str | None, why: tuple[str, str]) -> None:
        actor = self.cm.actor(trace_id, self.title)
        actor.by, actor.reason = f"{owner['kind'].lower()}/{owner['metadata']['name']}", why
        meta = pod["metadata"]
        try:
            api.delete(self.cm.cluster, "Pod", meta.get("namespace"), meta["name"], actor)
        except ApiError:
            return  # already gone
        self.cm.forget_pod(pod)
        message = f"Deleted pod: {meta['name']}"
        event_recorder.record(
            self.cm.cluster, owner, "SuccessfulDelete", message, actor, component=self.event_component
        )

    def compute_status(self, owner: dict) -> dict:
        """One pass over the owned pods (a 1,000-replica RC is recounted after every batch of changes)."""
        template_labels = ((owner.get("spec") or {}).get("template") or {}).get("metadata", {}).get(
            "labels"
        ) or {}
        wanted_labels = template_labels.items()
        replicas = fully_labeled = ready = available = 0
        min_ready = int((owner.get("spec") or {}).get("minReadySeconds") or 0)
        now = clock.now()
        for pod in self.cm.pods_by_owner.get(owner["metadata"]["uid"], {}).values():
            if not is_active(pod):
                continue
            replicas += 1
            if wanted_labels <= labels_of(pod).items():
                fully_labeled += 1
            if is_ready(pod):
                ready += 1
                if is_available(pod, min_ready, now):
                    available += 1
        status = {
            "replicas": replicas,
            "fullyLabeledReplicas": fully_labeled,
            "readyReplicas": ready,
            "availableReplicas": available,
            "observedGeneration": owner["metadata"].get("generation", 1),
        }
        # The API omits zero counts (omitempty), except replicas.
        return {k: v for k, v in status.items() if v or k == "replicas"}

    def _status_changed(self, owner: dict) -> bool:
        current = {k: v for k, v in (owner.get("status") or {}).items() if k != "conditions"}
        return current != self.compute_status(owner)

    def _update_status(self, owner: dict, trace_id: str | None) -> None:
        status = self.compute_status(owner)
        current = {k: v for k, v in (owner.get("status") or {}).items() if k != "conditions"}
        if current == status:
            return
        stored = {**(owner.get("status") or {}), **status}
        for key in ("fullyLabeledReplicas", "readyReplicas", "availableReplicas"):
            if key not in status:
                stored.pop(key, None)
        self._store_status(owner, stored, trace_id)

    def _store_status(self, owner: dict, status: dict, trace_id: str | None) -> None:
        """Write `status` through the owner's status subresource (and assume what was stored)."""
        body = copy.deepcopy(owner)
        body["status"] = status
        body["metadata"].pop("resourceVersion", None)
        try:
            stored = api.update(
                self.cm.cluster, body, self.cm.actor(trace_id, self.title), subresource="status"
            )
        except ApiError:
            return  # deleted meanwhile
        self.cm.assume(stored)


def _record_step_6(trace_id: str, en: str, zh: str, obj: tuple[str, str, str], expected: int) -> None:
    """Step 6, and how many pods it decided to create (the trace completes only when all were)."""
    with transaction.atomic():
        record_step(trace_id, 6, detail_en=en, detail_zh=zh, obj=obj)
        FlowTrace.objects.filter(pk=trace_id).update(expected_pods=expected)


def _ref(obj: dict) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace", ""), meta["name"]

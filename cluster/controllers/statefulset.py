"""The StatefulSet controller (apps/v1, v1.33): upstream's `pkg/controller/statefulset`
(stateful_set_control.go's updateStatefulSet, stateful_set_utils.go, stateful_pod_control.go).

Each pod has a stable name and identity, `<set>-<ordinal>`, with `spec.hostname` its name and
`spec.subdomain` the set's serviceName (so the headless Service answers for
`web-0.web.default.svc.cluster.local`). OrderedReady creates them one at a time in ordinal order,
each only once the one before is Running and Ready, and removes them in reverse order; Parallel
creates and removes them all at once. A RollingUpdate replaces pods from the highest ordinal down
to `partition`, one at a time, each after the one above is healthy again; OnDelete leaves that to
the user. The templates rolled out are ControllerRevisions (cluster/controllers/history.py); the
pods carry theirs in `controller-revision-hash`.

A `volumeClaimTemplates` claim is created per pod (`<claim>-<set>-<ordinal>`) when the API server
serves PersistentVolumeClaims, its owners as persistentVolumeClaimRetentionPolicy says
(claim_owner_refs); otherwise the pod's creation fails with upstream's FailedCreate events, naming
what KubeSim does not simulate.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers import texts
from cluster.controllers.history import REVISION_LABEL, RevisionHistory, by_revision, stateful_set_snapshot
from cluster.controllers.owned import live_owner
from cluster.controllers.pods import is_ready, pod_from_template
from cluster.controllers.replicaset import ReplicaSetController
from cluster.controllers.replication import ReplicationManager
from cluster.flow import endings, gate
from cluster.flow import texts as flow_texts
from cluster.flow.recorder import record_step, skip_steps
from cluster.kubeapi.humanize import parse_time
from cluster.models import FlowTrace
from k8s import clock

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
_ORDINAL = re.compile(r"^(.*)-([0-9]+)$")


def ordinal(sts: dict, pod: dict) -> int:
    """getOrdinal: the pod's ordinal, -1 when its name is not `<set>-<n>`."""
    found = _ORDINAL.match(pod["metadata"]["name"])
    if found is None or found.group(1) != sts["metadata"]["name"]:
        return -1
    return int(found.group(2))


def start_ordinal(sts: dict) -> int:
    ordinals = (sts.get("spec") or {}).get("ordinals") or {}
    return ordinals.get("start", 0) or 0


def _replicas(sts: dict) -> int:
    return (sts.get("spec") or {}).get("replicas", 1)


def in_range(sts: dict, index: int) -> bool:
    return start_ordinal(sts) <= index < start_ordinal(sts) + _replicas(sts)


def pod_revision(pod: dict) -> str:
    return (pod["metadata"].get("labels") or {}).get(REVISION_LABEL, "")


def _phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase", "")


def terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def running_and_ready(pod: dict) -> bool:
    return _phase(pod) == "Running" and is_ready(pod)


def running_and_available(pod: dict, min_ready: int, now: datetime) -> bool:
    """isRunningAndAvailable: ready for at least minReadySeconds."""
    if not running_and_ready(pod):
        return False
    if not min_ready:
        return True
    ready = next(
        (c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), {}
    )
    since = parse_time(ready.get("lastTransitionTime"))
    return since is not None and since + timedelta(seconds=min_ready) <= now


def healthy(pod: dict) -> bool:
    return running_and_ready(pod) and not terminating(pod)


def revision_template(history: dict) -> dict:
    """The pod template a ControllerRevision holds (ApplyRevision's)."""
    template = copy.deepcopy(((history.get("data") or {}).get("spec") or {}).get("template") or {})
    template.pop("$patch", None)
    meta = template.get("metadata") or {}
    if meta.get("creationTimestamp") is None:
        meta.pop("creationTimestamp", None)
    return template


def claims(sts: dict, index: int) -> dict[str, dict]:
    """getPersistentVolumeClaims: template name -> the claim of the pod with this ordinal."""
    meta = sts["metadata"]
    match_labels = ((sts.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    found = {}
    for template in (sts.get("spec") or {}).get("volumeClaimTemplates") or []:
        claim = copy.deepcopy(template)
        claim_meta = claim.setdefault("metadata", {})
        template_name = claim_meta.get("name", "")
        claim_meta["name"] = f"{template_name}-{meta['name']}-{index}"
        claim_meta["namespace"] = meta.get("namespace", "default")
        claim_meta["labels"] = {**(claim_meta.get("labels") or {}), **match_labels}
        claim.pop("status", None)
        found[template_name] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **claim}
    return found


def new_pod(sts: dict, template: dict, index: int, revision_name: str) -> dict:
    """newStatefulSetPod + setPodRevision: the pod of this ordinal from `template`."""
    name = f"{sts['metadata']['name']}-{index}"
    pod = pod_from_template(sts, template, name)
    labels = pod["metadata"]["labels"]
    labels[POD_NAME_LABEL] = name
    labels[POD_INDEX_LABEL] = str(index)
    labels[REVISION_LABEL] = revision_name
    spec = pod["spec"] = copy.deepcopy(pod["spec"])
    spec["hostname"] = name
    spec["subdomain"] = (sts.get("spec") or {}).get("serviceName", "")
    wanted = claims(sts, index)
    volumes = [
        {"name": template_name, "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}}
        for template_name, claim in wanted.items()
    ]
    spec["volumes"] = volumes + [v for v in spec.get("volumes") or [] if v.get("name") not in wanted]
    if not spec["volumes"]:
        spec.pop("volumes")
    return pod


@dataclass
class Action:
    verb: str  # "create" or "delete"
    index: int
    pod: dict  # the pod to create, or the one to delete
    why: str = ""  # a deletion's: scale-down, update, failed


@dataclass
class Plan:
    actions: list[Action] = field(default_factory=list)
    status: dict = field(default_factory=dict)
    waiting: str = ""  # the pod OrderedReady waits for, if any


def _counts(pods: list[dict], min_ready: int, current: str, update: str, now: datetime) -> dict:
    """computeReplicaStatus over the pods that exist."""
    counts = {
        "replicas": 0,
        "readyReplicas": 0,
        "availableReplicas": 0,
        "currentReplicas": 0,
        "updatedReplicas": 0,
    }
    for pod in pods:
        counts["replicas"] += 1
        if running_and_ready(pod):
            counts["readyReplicas"] += 1
            if running_and_available(pod, min_ready, now):
                counts["availableReplicas"] += 1
        if not terminating(pod):
            counts["currentReplicas"] += pod_revision(pod) == current
            counts["updatedReplicas"] += pod_revision(pod) == update
    return counts


def plan_update(sts: dict, pods: list[dict], current: dict, update: dict, now: datetime) -> Plan:
    """updateStatefulSet: what one sync does, in upstream's order (replicas in ordinal order, then
    the condemned in reverse order, then one pod of a rolling update), stopping where
    OrderedReady must wait."""
    spec = sts.get("spec") or {}
    min_ready = spec.get("minReadySeconds", 0) or 0
    plan = Plan()
    status = {
        "observedGeneration": sts["metadata"].get("generation", 1),
        "currentRevision": current["metadata"]["name"],
        "updateRevision": update["metadata"]["name"],
        "collisionCount": (sts.get("status") or {}).get("collisionCount") or 0,
    }
    plan.status = status
    start, count = start_ordinal(sts), _replicas(sts)
    slots: list[dict | None] = [None] * count
    condemned = []
    for pod in pods:
        index = ordinal(sts, pod)
        if in_range(sts, index):
            slots[index - start] = pod
        elif index >= 0:
            condemned.append(pod)
    condemned.sort(key=lambda p: ordinal(sts, p), reverse=True)
    existing = [p for p in slots if p is not None] + condemned

    def finish() -> Plan:
        status.update(_counts(existing, min_ready, status["currentRevision"], status["updateRevision"], now))
        return plan

    first_unhealthy = next((p for p in slots if p is None or not healthy(p)), None)
    if first_unhealthy is None:
        first_unhealthy = next((p for p in reversed(condemned) if not healthy(p)), None)
    if sts["metadata"].get("deletionTimestamp"):
        return finish()
    monotonic = spec.get("podManagementPolicy", "OrderedReady") != "Parallel"
    strategy = spec.get("updateStrategy") or {}
    partition = (strategy.get("rollingUpdate") or {}).get("partition", 0) or 0
    for offset, pod in enumerate(slots):
        index = start + offset
        if pod is None:
            from_current = (
                strategy.get("type", "RollingUpdate") == "RollingUpdate" and index < start + partition
            )
            source = current if from_current else update
            made = new_pod(sts, revision_template(source), index, source["metadata"]["name"])
            plan.actions.append(Action("create", index, made))
            if monotonic:
                return finish()
            continue
        if _phase(pod) in ("Failed", "Succeeded"):
            if not terminating(pod):
                plan.actions.append(Action("delete", index, pod, "failed"))
            if monotonic:
                return finish()
            continue
        if monotonic and (terminating(pod) or not running_and_available(pod, min_ready, now)):
            plan.waiting = pod["metadata"]["name"]
            return finish()
    for pod in condemned:
        if terminating(pod):
            if monotonic:
                plan.waiting = pod["metadata"]["name"]
                return finish()
            continue
        if monotonic and pod is not first_unhealthy and not running_and_available(pod, min_ready, now):
            plan.waiting = (first_unhealthy or pod)["metadata"]["name"]
            return finish()
        plan.actions.append(Action("delete", ordinal(sts, pod), pod, "scale-down"))
        if monotonic:
            return finish()
    finish()
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return plan
    for offset in range(count - 1, partition - 1, -1):
        pod = slots[offset]
        if pod is None:
            continue
        if pod_revision(pod) != update["metadata"]["name"] and not terminating(pod):
            plan.actions.append(Action("delete", start + offset, pod, "update"))
            status["currentReplicas"] -= 1
            return plan
        if not healthy(pod):
            plan.waiting = pod["metadata"]["name"]
            return plan
    return plan


def complete_rolling_update(sts: dict, status: dict) -> None:
    """completeRollingUpdate: every replica updated and ready, the update revision is current."""
    strategy = ((sts.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate")
    if (
        strategy == "RollingUpdate"
        and status.get("updatedReplicas", 0) == status.get("replicas", 0)
        and status.get("readyReplicas", 0) == status.get("replicas", 0)
    ):
        status["currentReplicas"] = status.get("updatedReplicas", 0)
        status["currentRevision"] = status.get("updateRevision", "")


def wire_status(status: dict) -> dict:
    """StatefulSetStatus as JSON: replicas and availableReplicas always, the rest when set."""
    always = ("replicas", "availableReplicas", "collisionCount")
    return {k: v for k, v in status.items() if v or k in always}


class StatefulSetController(ReplicationManager):
    kind = "StatefulSet"
    title = "StatefulSet controller"
    event_component = "statefulset-controller"

    selects = ReplicaSetController.selects  # a LabelSelector, as a ReplicaSet's

    def __init__(self, manager) -> None:
        super().__init__(manager)
        self.history = RevisionHistory(manager, self.title)

    def pods(self, sts: dict) -> list[dict]:
        return [p for p in self.cm.owned_pods(sts) if ordinal(sts, p) >= 0]

    async def sync(self, sts: dict, trace_id: str | None) -> None:
        meta = sts["metadata"]
        current, update, histories = await self._revisions(sts, trace_id)
        if update is None:
            return
        plan = plan_update(sts, self.pods(sts), current, update, clock.now())
        steps = trace_id is not None and trace_id not in self.cm.stepped
        if steps:
            steps = await db(self.cm.needs_steps)(
                trace_id, self.kind, meta.get("namespace", ""), meta["name"]
            )
        if steps:
            await self._record_statefulset_decision(sts, trace_id, plan)
        for action in plan.actions:
            if action.verb == "create":
                if not await gate.is_open(self.cm.cluster_name, trace_id):
                    await gate.before_step(self.cm.cluster_name, trace_id, 7)
                if not await db(self._create)(sts, action, trace_id):
                    break
            else:
                await db(self._delete)(sts, action, trace_id)
        complete_rolling_update(sts, plan.status)
        await db(self._write_stateful_status)(sts, wire_status(plan.status), trace_id)
        live = {current["metadata"]["name"], update["metadata"]["name"]}
        live |= {pod_revision(p) for p in self.cm.owned_pods(sts)}
        old = [h for h in histories if h["metadata"]["name"] not in live]
        if len(old) > (sts.get("spec") or {}).get("revisionHistoryLimit", 10):
            await db(self.history.cleanup)(sts, old, live, "", trace_id)

    async def _revisions(
        self, sts: dict, trace_id: str | None
    ) -> tuple[dict | None, dict | None, list[dict]]:
        """getStatefulSetRevisions: (current, update, every revision); the update revision is
        created, or renumbered when an older template comes back."""
        if self.history.needs_writes(sts):
            update, _ = await db(self.history.construct)(sts, stateful_set_snapshot(sts), trace_id)
        else:
            (update,), _ = self.history.split(sts)
        histories = by_revision(self.history.controlled(sts))
        wanted = (sts.get("status") or {}).get("currentRevision")
        current = next((h for h in histories if h["metadata"]["name"] == wanted), None) or update
        return current, update, histories

    async def _record_statefulset_decision(self, sts: dict, trace_id: str, plan: Plan) -> None:
        cluster = self.cm.cluster_name
        have = len([p for p in self.pods(sts) if not terminating(p)])
        wanted = _replicas(sts)
        await gate.before_step(cluster, trace_id, 5)
        en, zh = texts.event_received(sts)
        obj = ("StatefulSet", sts["metadata"].get("namespace", ""), sts["metadata"]["name"])
        await db(_record_step)(trace_id, 5, en, zh, obj, None)
        await gate.before_step(cluster, trace_id, 6)
        existing = {p["metadata"]["name"] for p in self.pods(sts)}
        start = start_ordinal(sts)
        missing = [f"{sts['metadata']['name']}-{i}" for i in range(start, start + wanted)]
        creates = [name for name in missing if name not in existing] if plan.actions else []
        ordered = (sts.get("spec") or {}).get("podManagementPolicy", "OrderedReady") != "Parallel"
        en, zh = texts.stateful_set_decided(sts, have, wanted, creates, ordered)
        await db(_record_step)(trace_id, 6, en, zh, obj, max(0, wanted - have))
        self.cm.stepped.add(trace_id)
        if not creates:
            en, zh = texts.no_new_pod(self.title, wanted - have if wanted < have else 0)
            await db(skip_steps)(FlowTrace(pk=trace_id), range(7, 14), en, zh, obj=obj)

    # -- database thread ---------------------------------------------------------------------
    def _create(self, sts: dict, action: Action, trace_id: str | None) -> bool:
        """CreateStatefulPod: the pod's claims first, then the pod, with upstream's events."""
        actor = self.cm.actor(trace_id, self.title)
        set_name = sts["metadata"]["name"]
        pod = action.pod
        pod_name = pod["metadata"]["name"]
        with transaction.atomic():
            current = live_owner(store.lock(self.cm.cluster), sts)
            if current is None or (current.get("spec") or {}) != (sts.get("spec") or {}):
                return False  # deleted or changed meanwhile: the next sync decides
            problem = self._create_claims(sts, action.index, pod_name, actor)
            if problem is None:
                try:
                    created = api.create(self.cm.cluster, pod, actor)
                except ApiError as error:
                    problem = error.message
        if problem is not None:
            message = f"create Pod {pod_name} in StatefulSet {set_name} failed error: {problem}"
            self._event(sts, "FailedCreate", message, actor, warning=True)
            if actor.trace is not None:
                detail = flow_texts.failed_create(f"StatefulSet {set_name}", problem)
                endings.fail(actor.trace.pk, f"statefulset/{set_name}", detail, _ref(sts))
            return False
        self.cm.assume_pod(created)
        self._event(
            sts, "SuccessfulCreate", f"create Pod {pod_name} in StatefulSet {set_name} successful", actor
        )
        return True

    def _create_claims(self, sts: dict, index: int, pod_name: str, actor) -> str | None:
        """createPersistentVolumeClaims: the claims this pod lacks; what failed, or None."""
        wanted = claims(sts, index)
        if not wanted:
            return None
        set_name = sts["metadata"]["name"]
        problems = []
        for claim in wanted.values():
            name, namespace = claim["metadata"]["name"], claim["metadata"]["namespace"]
            try:
                api.get(self.cm.cluster, "PersistentVolumeClaim", namespace, name)
                continue
            except ApiError as error:
                if error.code != 404:
                    problems.append(f"failed to retrieve PVC {name}: {error.message}")
                    continue
            pod = {"metadata": {"name": pod_name}}  # created after its claims: no uid yet
            refs = claim_owner_refs(
                claim["metadata"].get("ownerReferences") or [], sts, pod, scaled_down=False
            )
            claim["metadata"]["ownerReferences"] = refs
            try:
                api.create(self.cm.cluster, claim, actor)
            except ApiError as error:
                problems.append(f"failed to create PVC {name}: {error.message}")
                self._claim_failed(sts, name, pod_name, error.message, actor)
                continue
            message = f"create Claim {name} Pod {pod_name} in StatefulSet {set_name} success"
            self._event(sts, "SuccessfulCreate", message, actor)
        return "[" + ", ".join(problems) + "]" if len(problems) > 1 else (problems[0] if problems else None)

    def _claim_failed(self, sts: dict, claim: str, pod: str, problem: str, actor) -> None:
        set_name = sts["metadata"]["name"]
        message = f"create Claim {claim} for Pod {pod} in StatefulSet {set_name} failed error: {problem}"
        self._event(sts, "FailedCreate", message, actor, warning=True)

    def _delete(self, sts: dict, action: Action, trace_id: str | None) -> None:
        actor = self.cm.actor(trace_id, self.title)
        set_name = sts["metadata"]["name"]
        pod = action.pod
        name = pod["metadata"]["name"]
        actor.by, actor.reason = f"statefulset/{set_name}", texts.stateful_pod_deleted(sts, name, action.why)
        if action.why == "scale-down":
            self._claims_follow_pod(sts, action.index, pod, actor)
        try:
            api.delete(self.cm.cluster, "Pod", pod["metadata"].get("namespace"), name, actor)
        except ApiError:
            return  # already gone
        self.cm.forget_pod(pod)
        self._event(sts, "SuccessfulDelete", f"delete Pod {name} in StatefulSet {set_name} successful", actor)

    def _claims_follow_pod(self, sts: dict, index: int, pod: dict, actor) -> None:
        """A condemned pod's claims (scale-down): their owners as the retention policy says, so
        with whenScaled=Delete the garbage collector deletes them after the pod; with Retain (the
        default) they stay for a scale-up to find."""
        for wanted in claims(sts, index).values():
            meta = wanted["metadata"]
            try:
                claim = api.get(self.cm.cluster, "PersistentVolumeClaim", meta["namespace"], meta["name"])
            except ApiError:
                continue
            refs = claim["metadata"].get("ownerReferences") or []
            if has_stale_owner_ref(refs, sts, "apps/v1", "StatefulSet") or has_stale_owner_ref(
                refs, pod, "v1", "Pod"
            ):
                continue  # a previous set's claim (isClaimOwnerUpToDate): not ours to touch
            updated = claim_owner_refs(refs, sts, pod, scaled_down=True)
            if updated == refs:
                continue
            claim["metadata"]["ownerReferences"] = updated
            try:
                api.update(self.cm.cluster, claim, actor)
            except ApiError:
                continue  # changed meanwhile: it keeps its owners

    def _event(self, sts: dict, reason: str, message: str, actor, warning: bool = False) -> None:
        event_recorder.record(
            self.cm.cluster,
            sts,
            reason,
            message,
            actor,
            type_="Warning" if warning else "Normal",
            component=self.event_component,
        )

    def _write_stateful_status(self, sts: dict, status: dict, trace_id: str | None) -> None:
        current = {k: v for k, v in (sts.get("status") or {}).items() if k != "conditions"}
        if current == status:
            return
        conditions = (sts.get("status") or {}).get("conditions")
        self._store_status(sts, {**status, **({"conditions": conditions} if conditions else {})}, trace_id)


def retention_policy(sts: dict) -> tuple[str, str]:
    """getPersistentVolumeClaimRetentionPolicy: (whenScaled, whenDeleted), Retain when unset."""
    policy = (sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    return policy.get("whenScaled") or "Retain", policy.get("whenDeleted") or "Retain"


def _matches(ref: dict, obj: dict, api_version: str, kind: str) -> bool:
    """matchesRef: the same apiVersion, kind and name (whatever the uid)."""
    return (
        ref.get("apiVersion") == api_version
        and ref.get("kind") == kind
        and ref.get("name") == obj["metadata"]["name"]
    )


def has_stale_owner_ref(refs: list[dict], obj: dict, api_version: str, kind: str) -> bool:
    """hasStaleOwnerRef: the first ref naming the object carries another uid."""
    for ref in refs:
        if _matches(ref, obj, api_version, kind):
            return ref.get("uid") != obj["metadata"].get("uid")
    return False


def has_unexpected_controller(refs: list[dict], sts: dict, pod: dict) -> bool:
    """hasUnexpectedController: under a Delete policy, a controller of the claim that is neither
    the set nor the pod, or a ref to either with another uid (pods wrongly orphaned)."""
    if retention_policy(sts) == ("Retain", "Retain"):
        return False
    for ref in refs:
        for obj, api_version, kind in ((sts, "apps/v1", "StatefulSet"), (pod, "v1", "Pod")):
            if _matches(ref, obj, api_version, kind):
                if ref.get("uid") != obj["metadata"].get("uid"):
                    return True
                break
        else:
            if ref.get("controller"):
                return True
    return False


def claim_owner_refs(refs: list[dict], sts: dict, pod: dict, scaled_down: bool) -> list[dict]:
    """updateClaimOwnerRefForSetAndPod: a claim's ownerReferences under the set's
    persistentVolumeClaimRetentionPolicy. Its refs to the set and the pod are scrubbed; then the
    set becomes its controller when claims go with the set (whenDeleted=Delete) and the pod is in
    range, the pod when claims go with a pod scaled away (whenScaled=Delete). A claim with an
    unexpected controller keeps only the scrubbed refs."""
    unexpected = has_unexpected_controller(refs, sts, pod)
    kept = [
        ref
        for ref in refs
        if not _matches(ref, sts, "apps/v1", "StatefulSet") and not _matches(ref, pod, "v1", "Pod")
    ]
    if unexpected:
        return kept
    scaled, deleted = retention_policy(sts)
    if scaled == "Delete" and scaled_down:
        return [*kept, _controller_ref(pod, "v1", "Pod")]
    if deleted == "Delete" and (scaled != "Delete" or not scaled_down):
        return [*kept, _controller_ref(sts, "apps/v1", "StatefulSet")]
    return kept


def _controller_ref(obj: dict, api_version: str, kind: str) -> dict:
    """metav1.NewControllerRef."""
    meta = obj["metadata"]
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _record_step(trace_id: str, step: int, en: str, zh: str, obj: tuple, expected: int | None) -> None:
    """Step 5 or 6; step 6 with how many pods it decided to create (the trace completes after)."""
    with transaction.atomic():
        record_step(trace_id, step, detail_en=en, detail_zh=zh, obj=obj)
        if expected is not None:
            FlowTrace.objects.filter(pk=trace_id).update(expected_pods=expected)


def _ref(obj: dict) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace", ""), meta["name"]

"""A pod's deletion as a story of its own: a user's DELETE, an eviction (kubectl drain, kubectl
evict: POST pods/NAME/eviction), a preemption's deletion of a victim.

Steps 1–4 are the request (for an eviction, step 3 is the PodDisruptionBudget check and the
mark); 5–11 do not apply (no controller or scheduler removes a pod); 12 is the kubelet stopping
the containers (Terminating); 13 the APIServer removing the pod when the kubelet's final DELETE
lands; then the ending ("Evicted from node2 (grace 30 s)"). The trace ends when the pod is gone,
whatever its controller's replacement does: that one is a trace of its own
(cluster/flow/replacements.py), linked to this one by its `causes`.

Steps 12–13 follow the kubelet and the grace period, not the gate: a pod marked for deletion is
already on its way out, and drain or delete --wait waits for it.
"""

from __future__ import annotations

from cluster.flow import deletiontexts as words
from cluster.flow import endings, steprows, texts, titles
from cluster.flow.recorder import StepSpec, record_steps
from cluster.models import Cluster, FlowTrace

VERBS = words.VERBS


def controller_of(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def request_steps(verb: str, event, actor, revision: int) -> list[StepSpec]:
    """Steps 3–11 of a deletion's story (1 and 2 are every request's), and 12–13 skipped when the
    pod was removed at once."""
    pod = event.object or {}
    stored = texts.object_stored(event)
    if verb == "evict":
        checked = words.budget_checked(actor.budget)
        three = (f"{checked[0]} {stored[0]}".strip(), f"{checked[1]}{stored[1]}")
        title = words.CHECKED_TITLE
    else:
        three = stored
        title = words.MARKED_TITLE if event.type == "MODIFIED" else words.REMOVED_AT_ONCE_TITLE
    specs = [
        StepSpec(3, *three, revision=revision, title=title),
        StepSpec(4, *texts.event_sent(event), revision=revision, title=titles.event_sent(event.type)),
    ]
    en, zh = words.not_for_controllers(controller_of(pod))
    specs += [StepSpec(n, en, zh, revision=revision, skipped=True) for n in range(5, 12)]
    if event.type == "DELETED":
        en, zh = words.removed_at_once(*words.AT_ONCE)
        specs += [StepSpec(n, en, zh, revision=revision, skipped=True) for n in (12, 13)]
    return specs


def ended_at_once(cluster: Cluster, trace: FlowTrace, verb: str, event, actor) -> None:
    """A pod removed by the request itself (never on a node, finished, grace 0): the story ends
    with its steps 1–4."""
    if steprows.mark_finished(trace.pk):
        _end(cluster, trace.pk, verb, event, actor, node="")


def stopping(items: list[tuple[str, str, str, str, list[str], float, int]]) -> None:
    """Database thread, from the kubelet: step 12 of each deletion story whose pod it now stops.

    items: (trace id, namespace, name, node, running containers, seconds to stop, grace)."""
    ids = {item[0] for item in items}
    found = {
        t["id"]: t
        for t in FlowTrace.objects.filter(pk__in=ids, kind="Pod", verb__in=VERBS, finished_at=None).values(
            "id", "namespace", "name"
        )
    }
    for trace_id, namespace, name, node, containers, stop, grace in items:
        trace = found.get(trace_id)
        if trace is None or (trace["namespace"], trace["name"]) != (namespace, name):
            continue  # not a deletion's story (a controller's own delete), or ended already
        en, zh = words.stopping(node, containers, stop, grace)
        record_steps(trace_id, [StepSpec(12, en, zh, node=node, title=words.STOPPING_TITLE)])


def gone(cluster: Cluster, trace_id: str, row, event, asked) -> None:
    """Inside the final delete's transaction: step 13 and the ending of the deletion's story."""
    node = ((event.object or {}).get("spec") or {}).get("nodeName", "")
    en, zh = words.gone(texts.ref(event.object), node, event.revision)
    spec = StepSpec(
        13, en, zh, ("Pod", row.namespace, row.name), node, event.revision, title=words.GONE_TITLE
    )
    # Finished first: step 13 must not read as a pod's goal reached (endings.after_status).
    if not steprows.mark_finished(trace_id) or not record_steps(trace_id, [spec], cluster):
        return
    verb = FlowTrace.objects.filter(pk=trace_id).values_list("verb", flat=True).first() or "delete"
    _end(cluster, trace_id, verb, event, asked, node)


def _end(cluster: Cluster, trace_id: str, verb: str, event, actor, node: str) -> None:
    """The story's one ending (the caller marked the trace finished)."""
    pod = event.object or {}
    meta = pod.get("metadata") or {}
    grace = meta.get("deletionGracePeriodSeconds")
    grace = grace if isinstance(grace, int) and node else 0
    preemptor = _preemptor(trace_id) if verb == "preempt" else ""
    title = words.ending_title(verb, node, grace, preemptor)
    if actor.by:
        by = actor.by
    elif actor.client in texts.CLIENT_NAMES:
        by = texts.CLIENT_NAMES[actor.client]
    else:
        by = actor.detail or actor.client
    obj = ("Pod", meta.get("namespace", ""), meta.get("name", ""))
    by_zh = texts.CLIENT_NAMES_ZH.get(actor.client, by) if not actor.by else by
    detail = words.ending_detail(*obj, (by, by_zh), actor.reason, controller_of(pod))
    row = endings.ending_row(
        trace_id,
        steprows.last_seq(trace_id) + 1,
        "deleted",
        actor=endings.ACTORS.get(actor.client, actor.client),
        by=by,
        detail=detail,
        obj=obj,
        revision=event.revision,
        node=node,
    )
    row.title_en, row.title_zh = title
    steprows.insert([row])
    endings.notify_after_commit(cluster.name)


def _preemptor(trace_id: str) -> str:
    causes = (FlowTrace.objects.filter(pk=trace_id).values_list("causes", flat=True).first() or "").split()
    if not causes:
        return ""
    found = FlowTrace.objects.filter(pk=causes[0]).values("namespace", "name").first()
    return f"{found['namespace']}/{found['name']}" if found else ""

"""A controller's replacement of the pods deleted, evicted or preempted: a story of its own.

A pod's deletion is its own trace (cluster/flow/deletions.py), which ends when the pod is gone.
The controller that sees its pod go (the Terminating pod's Update event, under the deletion's
trace) replaces it in a new trace of its owner, verb "replace", whose `causes` list the deletions
it follows (kubectl drain evicts a node's pods together: one sync replaces them all). Its steps
1–4 were the deletions' (skipped here, naming them); 5–13 are the controller's, the scheduler's
and the kubelet's for the new pods; its ending says what replaced what. A replacement that no
node fits waits at step 9 in its own story, and the deletion's still ends once.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from cluster.flow import deletions
from cluster.flow.recorder import StepSpec, record_steps, start_trace
from cluster.models import Cluster, FlowTrace

# Deletions this recent, of the owner's pods and not yet replaced in a story, join the one started.
RECENT = timedelta(minutes=5)
# FlowTrace.causes holds this many trace ids (12 characters and a space each).
MAX_CAUSES = 15


def story_for(cluster: Cluster, trace_id: str, owner: dict, terminating: list[str]) -> str:
    """Database thread: the trace the controller's sync of `owner` writes under. When `trace_id`
    is the deletion of one of its pods, a new replacement story (its id); else `trace_id`.

    `terminating` names the owner's pods marked for deletion (their deletions join the story)."""
    found = FlowTrace.objects.filter(pk=trace_id).values("kind", "verb", "namespace", "name").first()
    if found is None or found["kind"] != "Pod" or found["verb"] not in deletions.VERBS:
        return trace_id
    meta = owner["metadata"]
    namespace, name, kind = meta.get("namespace", ""), meta["name"], owner["kind"]
    with transaction.atomic():
        replaced = FlowTrace.objects.filter(
            cluster=cluster, verb="replace", kind=kind, namespace=namespace, name=name
        )
        linked = " ".join(replaced.order_by("-created_at").values_list("causes", flat=True)[:50]).split()
        if trace_id in linked:  # its replacement's story exists already
            return replaced.filter(causes__contains=trace_id).values_list("pk", flat=True).first() or trace_id
        others = FlowTrace.objects.filter(
            cluster=cluster,
            kind="Pod",
            namespace=namespace,
            name__in=terminating,
            verb__in=deletions.VERBS,
            created_at__gte=timezone.now() - RECENT,
        ).exclude(pk__in=[trace_id, *linked])
        causes = [(trace_id, found["verb"], found["name"])]
        causes += list(others.order_by("created_at").values_list("pk", "verb", "name")[: MAX_CAUSES - 1])
        story = start_trace(
            cluster, kind, namespace, name, "replace", "controller-manager", " ".join(c[0] for c in causes)
        )
        en, zh = _begins(kind, namespace, name, causes)
        record_steps(story, [StepSpec(n, en, zh, skipped=True) for n in range(1, 5)])
    return story.pk


def _begins(kind: str, namespace: str, name: str, causes: list[tuple[str, str, str]]) -> tuple[str, str]:
    pods = ", ".join(f"{verb} Pod {namespace}/{pod}" for _, verb, pod in causes)
    return (
        f"This story begins at step 5: {kind} {namespace}/{name} replaces what was deleted ({pods}). "
        "Steps 1–4 were the deletion's, in its own trace: the request, etcd, and the Update event "
        "(the pod marked for deletion) that the Controller Manager now receives.",
        f"本流程从第 5 步开始：{kind} {namespace}/{name} 替换被删除的 Pod（{pods}）。第 1–4 步属于删除自己的"
        "流程：请求、etcd，以及 Controller Manager 现在收到的 Update 事件（Pod 被标记为删除）。",
    )

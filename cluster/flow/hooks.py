"""Called by cluster.apiserver inside each write's transaction: the API server's own steps.

Steps 1–4 happen inside the user's API request (one atomic write), so they are recorded here and
are never gated; pace and step mode apply from step 5 on, where a component acts (gate.py).
The API server also records 7/8 (a controller's pod lands), 11 (a binding lands) and 13 (the
kubelet's status lands), because those are writes it performs.
"""

from __future__ import annotations

from cluster.apiserver.kinds import workload_kinds
from cluster.flow import deletions, endings, gate, terminations, texts, titles
from cluster.flow.recorder import StepSpec, record_step, record_steps, start_trace
from cluster.models import Cluster, FlowTrace
from k8s.pods import changed_images

USER_CLIENTS = frozenset({"kubectl", "web", "upload", "api"})


def on_write(cluster: Cluster, verb: str, row, event, actor) -> FlowTrace | None:
    """Record this write's steps; return the trace the row carries from now on."""
    kind = row.kind
    ended = ""
    if verb == "delete" and kind == "Pod":
        # The kubelet's final delete after a graceful deletion: the deletion's own story ends
        # (step 13, the ending); the pod's own trace ends with the one who asked, unless that
        # story tells it.
        asked, ended = terminations.requester(cluster, row, actor)
        if ended:
            deletions.gone(cluster, ended, row, event, asked)
        if getattr(row, "trace_id", None):
            endings.object_deleted(
                cluster, row.trace_id, kind, row.namespace, row.name, asked, event.revision, reopen=not ended
            )
    elif verb == "delete" and getattr(row, "trace_id", None) and kind in workload_kinds():
        endings.object_deleted(cluster, row.trace_id, kind, row.namespace, row.name, actor, event.revision)
    if kind == "Pod" and verb in ("terminate", "delete") and not ended:
        deletion = _deletion_verb(verb, event, actor)
        if deletion:
            trace = _start(cluster, deletion, row, event, actor)
            if verb == "terminate":
                terminations.remember(cluster, row, actor, trace.pk)
            return trace
    if verb == "terminate":
        terminations.remember(cluster, row, actor)
    if actor.client in USER_CLIENTS:
        if _starts_trace(kind, event, verb):
            return _start(cluster, verb, row, event, actor)
        return _current_trace(row)
    trace = actor.trace
    if trace is None or kind != "Pod":
        return trace if trace is not None else _current_trace(row)
    pod = event.object
    obj = ("Pod", row.namespace, row.name)
    if actor.client == "controller-manager" and event.type == "ADDED":
        stored, sent = texts.pod_stored(pod, event)
        revision = event.revision
        specs = [StepSpec(7, *stored, obj, revision=revision)]
        # With a pace or in step mode, step 8 is a step of its own (cluster/flow/podevent.py).
        if gate.is_open_now(cluster.name):
            specs.append(StepSpec(8, *sent, obj, revision=revision))
        record_steps(trace, specs, cluster)
    elif actor.client == "scheduler" and verb == "bind":
        node = (pod.get("spec") or {}).get("nodeName", "")
        en, zh = texts.binding_landed(pod, event)
        record_step(
            trace, 11, detail_en=en, detail_zh=zh, obj=obj, node=node, revision=event.revision, locked=cluster
        )
    elif actor.client == "kubelet" and verb == "status":
        en, zh = texts.status_stored(pod, event, actor.node)
        node = actor.node
        outcome = "failed" if _failed(pod) else ""
        record_step(
            trace,
            13,
            detail_en=en,
            detail_zh=zh,
            obj=obj,
            node=node,
            revision=event.revision,
            locked=cluster,
            outcome=outcome,
        )
    return trace


FAILED_REASONS = frozenset(
    {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff", "CreateContainerConfigError"}
)


def _failed(pod: dict) -> bool:
    """The kubelet's report is a failure: the pod cannot run as it stands (it retries off-trace)."""
    status = pod.get("status") or {}
    if status.get("phase") == "Failed":
        return True
    for container in status.get("containerStatuses") or []:
        if ((container.get("state") or {}).get("waiting") or {}).get("reason") in FAILED_REASONS:
            return True
    return False


def _current_trace(row) -> FlowTrace | None:
    """The trace the row already carries (only its id is needed: no query for the rest)."""
    trace_id = getattr(row, "trace_id", None)
    return FlowTrace(pk=trace_id) if trace_id else None


def _deletion_verb(verb: str, event, actor) -> str:
    """The story a pod's deletion starts ("" for none): a preemption's of any victim, a user's
    eviction of any pod, a user's delete of a controller-owned pod (its controller replaces it)."""
    if actor.subresource == "preemption":
        return "preempt"
    if actor.client not in USER_CLIENTS:
        return ""
    if actor.subresource == "eviction":
        return "evict"
    return "delete" if deletions.controller_of(event.object or {}) is not None else ""


def _starts_trace(kind: str, event, verb: str = "") -> bool:
    """A user's create or spec change of a workload, or a new image for a running pod (a pod's
    deletion: _deletion_verb)."""
    obj = event.object or {}
    if kind == "Pod":
        if event.type == "MODIFIED":
            return bool(changed_images(obj))  # a new image for a running pod: the kubelet acts
        return event.type == "ADDED"
    if kind not in workload_kinds() or event.type == "DELETED":
        return False
    if event.type == "ADDED":
        return True
    # A spec change bumps metadata.generation past what the controller has observed; a label or
    # annotation change does not, and is not a workload change.
    generation = (obj.get("metadata") or {}).get("generation") or 0
    observed = (obj.get("status") or {}).get("observedGeneration") or 0
    return generation > observed


def _start(cluster: Cluster, verb: str, row, event, actor) -> FlowTrace:
    client = actor.detail or texts.CLIENT_NAMES.get(actor.client, actor.client)
    if verb == "preempt":
        client = actor.by or client
    trace = start_trace(cluster, row.kind, row.namespace, row.name, verb, client, causes=actor.cause)
    revision = event.revision
    specs = [
        StepSpec(1, *texts.open_watches(cluster.name, revision), revision=revision),
        StepSpec(2, *texts.request_sent(actor, client, verb, event), revision=revision),
    ]
    if verb in deletions.VERBS:
        specs += deletions.request_steps(verb, event, actor, revision)
    else:
        specs += [
            StepSpec(3, *texts.object_stored(event), revision=revision),
            StepSpec(4, *texts.event_sent(event), revision=revision, title=titles.event_sent(event.type)),
        ]
    if row.kind == "Pod" and event.type == "ADDED":
        specs.extend(_skipped_for_bare_pod(trace, event))
    elif row.kind == "Pod" and event.type == "MODIFIED" and verb not in deletions.VERBS:
        node = event.object["spec"].get("nodeName", "")
        en, zh = texts.image_changed(node)
        specs += [StepSpec(n, en, zh, node=node, revision=revision, skipped=True) for n in range(5, 12)]
    record_steps(trace, specs, cluster)
    if verb in deletions.VERBS and event.type == "DELETED":
        deletions.ended_at_once(cluster, trace, verb, event, actor)
    return trace


def _skipped_for_bare_pod(trace: FlowTrace, event) -> list[StepSpec]:
    obj = ("Pod", trace.namespace, trace.name)
    en, zh = texts.BARE_POD
    specs = [StepSpec(n, en, zh, obj, revision=event.revision, skipped=True) for n in range(5, 9)]
    node = (event.object.get("spec") or {}).get("nodeName")
    if node:
        en, zh = texts.node_name_bypass(node)
        specs += [StepSpec(n, en, zh, obj, node, event.revision, skipped=True) for n in range(9, 12)]
    return specs

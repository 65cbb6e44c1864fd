"""Called by cluster.apiserver inside each write's transaction: the API server's own steps.

Steps 1–4 happen inside the user's API request (one atomic write), so they are recorded here and
are never gated; pace and step mode apply from step 5 on, where a component acts (gate.py).
The API server also records 7/8 (a controller's pod lands), 11 (a binding lands) and 13 (the
kubelet's status lands), because those are writes it performs.
"""

from __future__ import annotations

from cluster.apiserver.kinds import workload_kinds
from cluster.flow import endings, gate, terminations, texts, titles
from cluster.flow.recorder import StepSpec, record_step, record_steps, start_trace
from cluster.models import Cluster, FlowTrace
from k8s.pods import changed_images

USER_CLIENTS = frozenset({"kubectl", "web", "upload", "api"})


def on_write(cluster: Cluster, verb: str, row, event, actor) -> FlowTrace | None:
    """Record this write's steps; return the trace the row carries from now on."""
    kind = row.kind
    if verb == "delete" and getattr(row, "trace_id", None) and (kind == "Pod" or kind in workload_kinds()):
        # A pod its kubelet removes at the end of a graceful deletion: the ending names who asked.
        asked = terminations.requester(cluster, row, actor) if kind == "Pod" else actor
        endings.object_deleted(cluster, row.trace_id, kind, row.namespace, row.name, asked, event.revision)
    if verb == "terminate":
        terminations.remember(cluster, row, actor)
        if actor.subresource == "preemption" and _starts_trace(kind, event, verb):
            # A preemption's victim that a controller replaces: a story of its own, which names
            # the preemptor (a bare victim's own trace ends with the reason at its removal).
            return _start(cluster, "preempt", row, event, actor)
    if actor.client in USER_CLIENTS:
        if _starts_trace(kind, event, verb):
            if verb == "terminate":
                verb = "evict" if actor.subresource == "eviction" else "delete"
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


def _starts_trace(kind: str, event, verb: str = "") -> bool:
    """A user's create or spec change of a workload, or a user's delete of a controller-owned pod
    (at once, or its graceful deletion's mark: the controller replaces it then)."""
    obj = event.object or {}
    if kind == "Pod":
        if verb == "terminate":
            return _controller_of(obj) is not None
        if event.type == "MODIFIED":
            return bool(changed_images(obj))  # a new image for a running pod: the kubelet acts
        return event.type == "ADDED" or (event.type == "DELETED" and _controller_of(obj) is not None)
    if kind not in workload_kinds() or event.type == "DELETED":
        return False
    if event.type == "ADDED":
        return True
    # A spec change bumps metadata.generation past what the controller has observed; a label or
    # annotation change does not, and is not a workload change.
    generation = (obj.get("metadata") or {}).get("generation") or 0
    observed = (obj.get("status") or {}).get("observedGeneration") or 0
    return generation > observed


def _controller_of(obj: dict) -> dict | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return ref
    return None


def _start(cluster: Cluster, verb: str, row, event, actor) -> FlowTrace:
    client = actor.detail or texts.CLIENT_NAMES.get(actor.client, actor.client)
    trace = start_trace(cluster, row.kind, row.namespace, row.name, verb, client)
    revision = event.revision
    specs = [
        StepSpec(1, *texts.open_watches(cluster.name, revision), revision=revision),
        StepSpec(2, *texts.request_sent(actor, client, verb, event), revision=revision),
        StepSpec(3, *texts.object_stored(event), revision=revision),
        StepSpec(4, *texts.event_sent(event), revision=revision, title=titles.event_sent(event.type)),
    ]
    if row.kind == "Pod" and event.type == "ADDED":
        specs.extend(_skipped_for_bare_pod(trace, event))
    elif row.kind == "Pod" and event.type == "MODIFIED" and verb not in ("delete", "evict", "preempt"):
        node = event.object["spec"].get("nodeName", "")
        en, zh = texts.image_changed(node)
        specs += [StepSpec(n, en, zh, node=node, revision=revision, skipped=True) for n in range(5, 12)]
    record_steps(trace, specs, cluster)
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

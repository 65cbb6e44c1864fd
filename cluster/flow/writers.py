"""What a write records in the flow: the recorder each Actor carries (docs/architecture.md rule 4).

`cluster.apiserver.store.write` calls `actor.flow.written(...)` inside the write's transaction,
with the revision and log entry it is about to commit; the answer is the trace the row carries
from now on. Whoever writes, the API server's bookkeeping comes first (`Writes`): a delete ends
what it ends, a graceful deletion's mark remembers who asked. Then the writer's own part:
- `REQUEST`, a user's request (kubectl, the page, the REST API, a lab): steps 1–4, which start a
  trace for a create or spec change, or a deletion's story (cluster/flow/deletions.py);
- `COMPONENT`, a component's write: it follows the trace it carries;
- the controller manager's, the scheduler's and the kubelet's own recorders add the step their
  write lands (7/8, 11, 13): `cluster/controllers/flowsteps.py`, `scheduler/flowsteps.py`,
  `cluster/kubelet/flowsteps.py`.

Steps 1–4 happen inside the user's API request (one atomic write), so they are never gated; pace
and step mode apply from step 5 on, where a component acts (gate.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluster.apiserver.kinds import workload_kinds
from cluster.flow import deletions, endings, terminations, texts, titles
from cluster.flow.recorder import StepSpec, record_steps, start_trace
from cluster.models import Cluster, FlowTrace
from k8s.pods import changed_images

if TYPE_CHECKING:
    from cluster.apiserver.actor import Actor


class Writes:
    """What every write records, whoever makes it; as it stands, a component's recorder."""

    def written(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        """Record this write's steps; return the trace the row carries from now on."""
        ended = _endings(cluster, verb, row, event, actor)
        if row.kind == "Pod" and verb in ("terminate", "delete") and not ended:
            story = self.deletion_story(event, actor)
            if story:
                trace = start(cluster, story, row, event, actor)
                if verb == "terminate":
                    terminations.remember(cluster, row, actor, trace.pk)
                return trace
        if verb == "terminate":
            terminations.remember(cluster, row, actor)
        return self.own(cluster, verb, row, event, actor)

    def deletion_story(self, event, actor: Actor) -> str:
        """The story this writer's deletion of a pod starts ("" for none)."""
        return ""

    def own(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        """The writer's own steps and the trace the write belongs to: the one it carries."""
        return actor.trace if actor.trace is not None else current_trace(row)


class Request(Writes):
    """A user's request: it starts a trace (steps 1–4) for what the control plane acts on."""

    def deletion_story(self, event, actor: Actor) -> str:
        """A user's eviction of any pod, a user's delete of a controller-owned pod (its controller
        replaces it)."""
        if actor.subresource == "eviction":
            return "evict"
        return "delete" if deletions.controller_of(event.object or {}) is not None else ""

    def own(self, cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace | None:
        if _starts_trace(row.kind, event):
            return start(cluster, verb, row, event, actor)
        return current_trace(row)


REQUEST = Request()
COMPONENT = Writes()


def _endings(cluster: Cluster, verb: str, row, event, actor: Actor) -> str:
    """A delete ends what it ends; the deletion story a pod's final delete ended ("" for none)."""
    kind = row.kind
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
        return ended
    if verb == "delete" and getattr(row, "trace_id", None) and kind in workload_kinds():
        endings.object_deleted(cluster, row.trace_id, kind, row.namespace, row.name, actor, event.revision)
    return ""


def current_trace(row) -> FlowTrace | None:
    """The trace the row already carries (only its id is needed: no query for the rest)."""
    trace_id = getattr(row, "trace_id", None)
    return FlowTrace(pk=trace_id) if trace_id else None


def _starts_trace(kind: str, event) -> bool:
    """A user's create or spec change of a workload, or a new image for a running pod (a pod's
    deletion: Request.deletion_story)."""
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


def start(cluster: Cluster, verb: str, row, event, actor: Actor) -> FlowTrace:
    """A new trace and its steps 1–4 (for a pod, the later steps that do not apply, skipped)."""
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

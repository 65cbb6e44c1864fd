"""A Namespace's deletion, as kube-apiserver's namespace REST storage does it
(`pkg/registry/core/namespace/storage`): the first DELETE only marks it (deletionTimestamp, phase
Terminating) and the namespace controller (`cluster/controllers/namespace.py`) empties it; it
removes the `kubernetes` finalizer from `spec.finalizers` (the `finalize` subresource) when nothing
is left, and then deletes the namespace for good. `PUT /api/v1/namespaces/<n>/finalize` is served
too (forcing a stuck namespace out by hand); a plain update keeps spec.finalizers. A DELETE while
`spec.finalizers` still names anything is a 409 Conflict in upstream's words.
"""

from __future__ import annotations

from cluster.apiserver import cascade, finalizers, store
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import conflict
from cluster.apiserver.reads import info_for
from cluster.models import ApiObject, Cluster
from k8s import clock

KUBERNETES = "kubernetes"  # the namespace controller's finalizer (v1.FinalizerKubernetes)
TERMINATING = "Terminating"
PURGING = (
    "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace "
    "will automatically be purged by the system."
)


def spec_finalizers(body: dict) -> list[str]:
    found = (body.get("spec") or {}).get("finalizers")
    return [f for f in found if isinstance(f, str)] if isinstance(found, list) else []


def delete(locked: Cluster, row: ApiObject, actor: Actor) -> dict:
    """DELETE of a namespace, in the caller's transaction: marked on the first request; removed
    (or kept for its metadata.finalizers) once its spec.finalizers are empty."""
    body = row.body
    if not body["metadata"].get("deletionTimestamp"):
        marked = store.clone(body)
        marked["metadata"]["deletionTimestamp"] = clock.now().strftime(finalizers.TIME_FORMAT)
        marked.setdefault("status", {})["phase"] = TERMINATING
        store.write(locked, "terminate", "Namespace", marked, row, actor)
        return marked
    if spec_finalizers(body):
        raise conflict(info_for("Namespace"), row.name, PURGING)
    return cascade.delete(locked, row, actor)


def finalize(locked: Cluster, row: ApiObject, actor: Actor) -> dict:
    """The namespace controller's last step, the finalize subresource: drop `kubernetes` from
    spec.finalizers; the update that leaves none removes the namespace (one DELETED event, as
    upstream's ShouldDeleteNamespaceDuringUpdate), unless its metadata.finalizers keep it."""
    body = store.clone(row.body)
    kept = [f for f in spec_finalizers(body) if f != KUBERNETES]
    spec = body.setdefault("spec", {})
    if kept:
        spec["finalizers"] = kept
    else:
        spec.pop("finalizers", None)  # omitempty
    if body == row.body:
        return body
    verb = "delete" if not kept and finalizers.released(row.body, body) else "update"
    store.write(locked, verb, "Namespace", body, row, actor)
    return body


def prepare_for_update(result: dict, old: dict, subresource: str | None) -> None:
    """namespaceStrategy.PrepareForUpdate: a plain update keeps the stored spec.finalizers; only
    the finalize subresource changes them (and keeps the status, as every update but status's)."""
    if subresource == "finalize":
        return
    kept = (old.get("spec") or {}).get("finalizers")
    spec = result.setdefault("spec", {})
    if kept is None:
        spec.pop("finalizers", None)
    else:
        spec["finalizers"] = store.clone(kept)

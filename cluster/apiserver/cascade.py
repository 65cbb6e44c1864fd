"""How a deletion cascades to the objects that name the deleted one in their ownerReferences.

The one definition used by the API server's DELETE and by the garbage collector
(`cluster/controllers/garbage_collector.py`), as Kubernetes' garbage collector defines it:

- Background: the owner goes first; its dependents follow.
- Foreground: the dependents go first (each cascading in turn); the owner goes last.
- Orphan: the owner goes; each dependent loses the ownerReference to it and stays.

The cascade is written in the caller's transaction. Every removal goes through `_remove`, where a
Pod's deletion is graceful (`cluster/apiserver/graceful.py`): a pod on a node gets
`metadata.deletionTimestamp` and stays, Terminating, until its kubelet has stopped the containers
and deletes it with grace 0; and an object that names finalizers stays, Terminating, until they are
removed (`cluster/apiserver/finalizers.py`). Every other object goes at once.

An owner that stays (finalizers) keeps its dependents until it is really removed, as upstream's
collector keeps the dependents of an owner that still exists (`release` cascades then). A
Foreground owner whose dependents do not all go at once (terminating pods) stays with the
`foregroundDeletion` finalizer, which the garbage collector removes once the last one is gone
(`finish_foreground`). Orphaning is done in the same transaction as the delete, so upstream's
`orphan` finalizer, added and removed within it, is never seen.
"""

from __future__ import annotations

from cluster.apiserver import finalizers, graceful, store
from cluster.apiserver.actor import Actor
from cluster.flow.writers import COMPONENT
from cluster.models import ApiObject, Cluster

BACKGROUND, FOREGROUND, ORPHAN = "Background", "Foreground", "Orphan"
PROPAGATION_POLICIES = (BACKGROUND, FOREGROUND, ORPHAN)


def collector_for(actor: Actor) -> Actor:
    """The actor of cascaded writes: the garbage collector, inside the trace of the deletion."""
    return Actor("controller-manager", "garbage collector", actor.trace, flow=COMPONENT)


def dependents(cluster: Cluster, owner: ApiObject) -> list[ApiObject]:
    """Objects whose (controller) ownerReference names `owner` (a Namespace's own objects are the
    namespace controller's: cluster/controllers/namespace.py)."""
    rows = ApiObject.objects.filter(cluster_id=cluster.pk)
    return list(rows.filter(owner_uid=owner.uid).exclude(pk=owner.pk))


def _remove(locked: Cluster, row: ApiObject, actor: Actor, grace: int | None = None, add: str = "") -> dict:
    """Remove one object: at once, or gracefully (a Pod on a node: deletionTimestamp set, or
    shortened, and the row kept for its kubelet), or not while it names finalizers (marked as
    being deleted, grace 0; `add` is a finalizer the deletion itself adds). `grace` is
    DeleteOptions.gracePeriodSeconds."""
    marked = graceful.mark(row.kind, row.body, grace)
    if marked is graceful.PENDING:
        return store.clone(row.body)  # already terminating with a grace period no longer than asked
    if marked is not None:
        store.write(locked, "terminate", row.kind, marked, row, actor)
        return marked
    if finalizers.of(row.body) or add:
        kept = finalizers.mark_deleting(row.body, add)
        if kept is None:
            return store.clone(row.body)  # already waiting for its finalizers
        store.write(locked, "terminate", row.kind, kept, row, actor)
        return kept
    body = store.clone(row.body)
    store.write(locked, "delete", row.kind, body, row, actor)
    return body


def _stays(locked: Cluster, row: ApiObject) -> bool:
    return store.find(locked, row.kind, row.namespace, row.name) is not None


def drop_owner(locked: Cluster, row: ApiObject, owner_uids: set[str], actor: Actor) -> dict:
    """Remove the ownerReferences to `owner_uids` from `row` (orphaning), one write."""
    body = store.clone(row.body)
    refs = body["metadata"].get("ownerReferences") or []
    kept = [ref for ref in refs if not (isinstance(ref, dict) and ref.get("uid") in owner_uids)]
    if kept:
        body["metadata"]["ownerReferences"] = kept
    else:
        body["metadata"].pop("ownerReferences", None)
    store.write(locked, "update", row.kind, body, row, actor)
    return body


def delete(
    locked: Cluster, row: ApiObject, actor: Actor, propagation: str = BACKGROUND, grace: int | None = None
) -> dict:
    """Delete `row` and apply `propagation` to its dependents, in the caller's transaction (which
    holds the cluster lock). Returns the owner as it was removed (or marked for graceful deletion).
    `grace` applies to `row` itself; dependents get their own default grace period, as the garbage
    collector's deletes do."""
    children = dependents(locked, row)
    collector = collector_for(actor)
    if propagation == FOREGROUND:
        for child in children:
            delete(locked, child, collector, FOREGROUND)
        waiting = bool(dependents(locked, row))  # terminating pods, dependents with finalizers
        return _remove(locked, row, actor, grace, finalizers.FOREGROUND if waiting else "")
    if propagation == ORPHAN:
        for child in children:
            drop_owner(locked, child, {row.uid}, collector)
        return _remove(locked, row, actor, grace)
    body = _remove(locked, row, actor, grace)
    if not _stays(locked, row):
        for child in children:
            delete(locked, child, collector, BACKGROUND)
    return body


def release(locked: Cluster, row: ApiObject, actor: Actor) -> None:
    """An owner kept by its finalizers has just been removed: its dependents follow (Background)."""
    collector = collector_for(actor)
    for child in dependents(locked, row):
        delete(locked, child, collector, BACKGROUND)


def finish_foreground(locked: Cluster, row: ApiObject, actor: Actor) -> bool:
    """The garbage collector's part of a Foreground deletion: once no dependent is left, remove
    the `foregroundDeletion` finalizer (and with it the owner, when it was the last). True when
    it wrote."""
    if finalizers.FOREGROUND not in finalizers.of(row.body) or dependents(locked, row):
        return False
    body = finalizers.without(row.body, finalizers.FOREGROUND)
    if finalizers.released(row.body, body):
        store.write(locked, "delete", row.kind, body, row, actor)
    else:
        store.write(locked, "update", row.kind, body, row, actor)
    return True


def owners_alive(cluster: Cluster, body: dict) -> tuple[set[str], set[str]]:
    """(uids of the ownerReferences that still exist, uids that do not)."""
    refs = [ref for ref in body["metadata"].get("ownerReferences") or [] if isinstance(ref, dict)]
    uids = {str(ref.get("uid", "")) for ref in refs}
    alive = set(ApiObject.objects.filter(cluster_id=cluster.pk, uid__in=uids).values_list("uid", flat=True))
    return alive, uids - alive


def collect(locked: Cluster, row: ApiObject, actor: Actor) -> str:
    """The garbage collector's verdict on a dependent whose controller owner is gone, applied:
    "deleted" when no owner is left (cascading in the background), "orphaned" when other owners
    remain (the dangling references are dropped), "kept" when its owner exists after all."""
    alive, gone = owners_alive(locked, row.body)
    if not gone or graceful.terminating(row.body):
        return "kept"  # a terminating dependent is already on its way out
    if alive:
        drop_owner(locked, row, gone, actor)
        return "orphaned"
    delete(locked, row, actor, BACKGROUND)
    return "deleted"

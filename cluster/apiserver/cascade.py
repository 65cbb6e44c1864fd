"""How a deletion cascades to the objects that name the deleted one in their ownerReferences.

The one definition used by the API server's DELETE and by the garbage collector
(`cluster/controllers/garbage_collector.py`), as Kubernetes' garbage collector defines it:

- Background: the owner goes first; its dependents follow.
- Foreground: the dependents go first (each cascading in turn); the owner goes last.
- Orphan: the owner goes; each dependent loses the ownerReference to it and stays.

KubeSim deletes at once (no finalizers, no grace period): the whole cascade is written in the
caller's transaction, so no dependent outlives its owner by even one revision. Every removal goes
through `_remove`, the single place where graceful deletion would instead stamp
`metadata.deletionTimestamp` (and let the kubelet finish the pod) before the row goes.
"""

from __future__ import annotations

from cluster.apiserver import store
from cluster.apiserver.actor import Actor
from cluster.models import ApiObject, Cluster

BACKGROUND, FOREGROUND, ORPHAN = "Background", "Foreground", "Orphan"
PROPAGATION_POLICIES = (BACKGROUND, FOREGROUND, ORPHAN)


def collector_for(actor: Actor) -> Actor:
    """The actor of cascaded writes: the garbage collector, inside the trace of the deletion."""
    return Actor("controller-manager", "garbage collector", actor.trace)


def dependents(cluster: Cluster, owner: ApiObject) -> list[ApiObject]:
    """Objects whose (controller) ownerReference names `owner`; a Namespace holds all its objects."""
    rows = ApiObject.objects.filter(cluster_id=cluster.pk)
    found = list(rows.filter(owner_uid=owner.uid).exclude(pk=owner.pk))
    if owner.kind == "Namespace":  # the namespace controller empties a deleted namespace
        found += rows.filter(namespace=owner.name).exclude(owner_uid__gt="")
    return found


def _remove(locked: Cluster, row: ApiObject, actor: Actor) -> dict:
    """Remove one object now (graceful deletion would set deletionTimestamp here instead)."""
    body = store.clone(row.body)
    store.write(locked, "delete", row.kind, body, row, actor)
    return body


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


def delete(locked: Cluster, row: ApiObject, actor: Actor, propagation: str = BACKGROUND) -> dict:
    """Delete `row` and apply `propagation` to its dependents, in the caller's transaction (which
    holds the cluster lock). Returns the owner as it was removed."""
    children = dependents(locked, row)
    collector = collector_for(actor)
    if propagation == FOREGROUND:
        for child in children:
            delete(locked, child, collector, FOREGROUND)
        return _remove(locked, row, actor)
    body = _remove(locked, row, actor)
    for child in children:
        if propagation == ORPHAN:
            drop_owner(locked, child, {row.uid}, collector)
        else:
            delete(locked, child, collector, BACKGROUND)
    return body


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
    if not gone:
        return "kept"
    if alive:
        drop_owner(locked, row, gone, actor)
        return "orphaned"
    delete(locked, row, actor, BACKGROUND)
    return "deleted"

"""Delete a cluster's objects through the API server, every one a write like any other (the log,
the flow and every watch see it): a lab's reset, the demo's fresh start."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.kinds import kind_info, reset_order
from cluster.models import ApiObject, Cluster

MERGE = "application/merge-patch+json"


def clear(cluster: Cluster, actor: Actor, keep: frozenset[str] = frozenset()) -> None:
    """Delete every object but the kinds in `keep`, at once (grace period 0, as `kubectl delete
    --force --grace-period=0`), owners before what they own so that no controller recreates what
    was just removed, finalizers removed too; built-in objects stay (they are not the class's)."""
    for kind in reset_order():
        if kind in keep:
            continue
        items, _ = api.list_objects(cluster, kind)
        for item in items:
            meta = item["metadata"]
            builtins = kind_info(kind).builtins
            if builtins is not None and builtins.has(meta.get("namespace", ""), meta["name"]):
                if builtins.refuse_delete is not None:
                    continue  # a system namespace or PriorityClass: never deleted
                if meta.get("resourceVersion") == "1":
                    continue  # the built-in `kubernetes` Service, never written: nothing to reset
            try:
                _remove(cluster, kind, meta.get("namespace"), meta["name"], actor)
                if kind == "Namespace":  # a reset does not wait for the namespace controller
                    for row in list(ApiObject.objects.filter(cluster=cluster, namespace=meta["name"])):
                        _remove(cluster, row.kind, row.namespace, row.name, actor)
                    api.finalize_namespace(cluster, meta["name"], actor)
            except api.ApiError as exc:
                # 404: already gone (a controller's pod, garbage-collected)
                if exc.code != 404:
                    raise


def _remove(cluster: Cluster, kind: str, namespace: str | None, name: str, actor: Actor) -> None:
    """Delete at once: grace 0, and the finalizers removed (a reset does not wait for their owners)."""
    try:
        kept = api.delete(cluster, kind, namespace, name, actor, grace_period=0)
        if kept["metadata"].get("finalizers"):
            api.patch(cluster, kind, namespace, name, {"metadata": {"finalizers": None}}, MERGE, actor)
    except api.ApiError as exc:
        if exc.code != 404:  # 404: gone with its owner
            raise

"""Delete a cluster's objects through the API server, every one a write like any other (the log,
the flow and every watch see it): a lab's reset, the demo's fresh start."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.kinds import kind_info, reset_order
from cluster.models import Cluster


def clear(cluster: Cluster, actor: Actor, keep: frozenset[str] = frozenset()) -> None:
    """Delete every object but the kinds in `keep`, at once (grace period 0, as `kubectl delete
    --force --grace-period=0`), owners before what they own so that no controller recreates what
    was just removed; built-in objects stay (they are not the class's)."""
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
                api.delete(cluster, kind, meta.get("namespace"), meta["name"], actor, grace_period=0)
            except api.ApiError as exc:
                # 404: already gone (a controller's pod, garbage-collected)
                if exc.code != 404:
                    raise

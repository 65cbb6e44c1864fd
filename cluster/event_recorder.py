"""Kubernetes Events (core/v1) written by the components, through the API server like any object.

Repeats of the same event (same object, reason and message) raise `count` on the existing Event,
as client-go's event correlator does ("Back-off pulling image ... (x4 over 2m)").
"""

from __future__ import annotations

import time

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster

# (cluster, involved uid, reason, message) -> the Event's name, for aggregation of repeats.
_seen: dict[tuple[str, str, str, str], str] = {}


def involved(obj: dict, field_path: str = "") -> dict:
    meta = obj.get("metadata") or {}
    ref = {
        "kind": obj.get("kind", ""),
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": obj.get("apiVersion", "v1"),
        "resourceVersion": meta.get("resourceVersion", ""),
    }
    if field_path:
        ref["fieldPath"] = field_path
    if not ref["namespace"]:
        del ref["namespace"]
    return ref


def record(
    cluster: Cluster,
    obj: dict,
    reason: str,
    message: str,
    actor: Actor,
    *,
    type_: str = "Normal",
    component: str,
    host: str = "",
    field_path: str = "",
) -> None:
    """Emit an Event about `obj` (synchronous: call from the database thread)."""
    ref = involved(obj, field_path)
    key = (cluster.name, ref["uid"], reason, message)
    now = now_rfc3339()
    name = _seen.get(key)
    if name is not None and _bump(cluster, ref.get("namespace") or "default", name, now, actor):
        return
    name = f"{ref['name']}.{time.time_ns():x}"
    source = {"component": component, "host": host} if host else {"component": component}
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": ref.get("namespace") or "default"},
        "involvedObject": ref,
        "reason": reason,
        "message": message,
        "source": source,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": type_,
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host,
    }
    api.create(cluster, body, actor)
    _seen[key] = name


def _bump(cluster: Cluster, namespace: str, name: str, now: str, actor: Actor) -> bool:
    try:
        event = api.get(cluster, "Event", namespace, name)
    except ApiError:
        return False
    event["count"] = int(event.get("count") or 1) + 1
    event["lastTimestamp"] = now
    api.update(cluster, event, actor)
    return True

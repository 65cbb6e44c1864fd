"""Kubernetes Events (core/v1) from the components, written through the API server like any object.

As client-go's event broadcaster, recording is asynchronous: `record` queues the Event (stamped
with the time it happened) and the control plane's event writer sends the queue in order, a
moment later, so a pod's start is not held up by its own Events. Repeats of the same event (same
object, reason and message) raise `count` on the existing Event, as the event correlator does
("Back-off pulling image ... (x4 over 2m)"); spam filtering and aggregation of similar Events
follow client-go's correlator (cluster/client/event_correlator.py).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.broadcast import nudge
from cluster.client import event_correlator
from cluster.models import Cluster
from database.sqlite import memo, writers

SEEN_LIMIT = 20_000
# Wakes the writer of a cluster's queue (keyed by cluster name).
QUEUED = nudge.Signal()


@dataclass(slots=True)
class _Queued:
    cluster: Cluster
    key: tuple  # cluster, involved uid, reason, message (or the combined Event's aggregation key)
    body: dict
    actor: Actor


_queues: dict[str, deque[_Queued]] = {}
# (cluster, involved uid, reason, message) -> the Event's name, for aggregation of repeats.
_seen: dict[tuple, str] = {}


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
    for empty in ("namespace", "uid", "resourceVersion"):  # Go's omitempty (a reference by name alone)
        if not ref[empty]:
            del ref[empty]
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
    related: dict | None = None,
    action: str = "",
) -> None:
    """Queue an Event about `obj`; `flush` writes it. `related` is a second object the event
    concerns (the preemptor of a Preempted victim) and `action` what was done ("Preempting")."""
    ref = involved(obj, field_path)
    now = now_rfc3339()
    source = {"component": component, "host": host} if host else {"component": component}
    body = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{ref['name']}.{time.time_ns():x}",
            "namespace": ref.get("namespace") or "default",
        },
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
    if related is not None:
        body["related"] = involved(related)
    if action:
        body["action"] = action
    if event_correlator.spam_filtered(cluster.name, body):
        return
    combined = event_correlator.aggregate(cluster.name, body)
    key = (cluster.name, *combined) if combined else (cluster.name, ref.get("uid", ""), reason, message)
    _queues.setdefault(cluster.name, deque()).append(_Queued(cluster, key, body, actor))
    QUEUED.fire(cluster.name)


def pending(cluster_name: str) -> int:
    return len(_queues.get(cluster_name, ()))


def flush(cluster_name: str, limit: int = 100) -> int:
    """Write up to `limit` queued Events in order, in one transaction (synchronous: the database
    thread); how many. Each Event is still its own API write, in a savepoint of its own. Fewer
    when a request queues for the writer gate meanwhile (writers.urgent_waiting)."""
    queue = _queues.get(cluster_name)
    if not queue:
        return 0
    written = 0
    fresh: dict[tuple, str] = {}  # Events created in this transaction
    # Events wait for a lull: their cluster may have been deleted (or made anew) meanwhile.
    live = set(Cluster.objects.filter(name=cluster_name).values_list("pk", flat=True))
    with memo.batch(), transaction.atomic():
        while queue and written < limit:
            if written and writers.urgent_waiting():
                break  # the rest in the next flush, after the request
            item = queue.popleft()
            if item.cluster.pk not in live:
                continue
            name = _seen.get(item.key) or fresh.get(item.key)
            if name is None or not _bump(item, name):
                try:
                    api.create(item.cluster, item.body, item.actor)
                except ApiError:
                    continue  # its namespace is gone
                fresh[item.key] = item.body["metadata"]["name"]
            written += 1
    # Committed: only now are the Events there to be counted up by their repeats.
    for key, name in fresh.items():
        if len(_seen) >= SEEN_LIMIT:
            _seen.clear()  # forget old correlations rather than grow without bound
        _seen[key] = name
    return written


def _bump(item: _Queued, name: str) -> bool:
    try:
        event = api.get(item.cluster, "Event", item.body["metadata"]["namespace"], name)
    except ApiError:
        return False
    event["count"] = int(event.get("count") or 1) + 1
    event["lastTimestamp"] = item.body["lastTimestamp"]
    event["message"] = item.body["message"]  # a combined Event shows the newest message
    api.update(item.cluster, event, item.actor)
    return True

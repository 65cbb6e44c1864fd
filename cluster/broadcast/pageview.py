"""What a socket with `?events=page` is sent of an object (cluster/broadcast/hub.py): the dashboard's view
of the kinds it draws little of, every other kind as stored. A 1,000-replica burst's Pod and Event
messages are most of its bytes, and the page parses every one of them while it draws."""

from __future__ import annotations

from collections.abc import Callable

from cluster.broadcast import podview

EVENT_METADATA = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
EVENT_FIELDS = ("reason", "type", "count", "firstTimestamp", "lastTimestamp")
INVOLVED_FIELDS = ("kind", "namespace", "name", "uid")
# The Events whose words a pod card shows: the prober's ("Readiness probe failed: …").
MESSAGE_REASONS = frozenset({"Unhealthy"})


def event_summary(event: dict) -> dict:
    """An Event as the page needs it: the dashboard shows few Events (kubectl and the console do),
    but keeps its revision, so it is told which object and why; the message only of a failed
    probe, which the pod's card names."""
    meta = event.get("metadata") or {}
    involved = event.get("involvedObject") or {}
    out = {
        "apiVersion": event.get("apiVersion", "v1"),
        "kind": "Event",
        "metadata": {k: meta[k] for k in EVENT_METADATA if k in meta},
        "involvedObject": {k: involved[k] for k in INVOLVED_FIELDS if k in involved},
    }
    out.update({k: event[k] for k in EVENT_FIELDS if k in event})
    if event.get("reason") in MESSAGE_REASONS and "message" in event:
        out["message"] = event["message"]
    return out


SUMMARIES: dict[str, Callable[[dict], dict]] = {"Pod": podview.summary, "Event": event_summary}

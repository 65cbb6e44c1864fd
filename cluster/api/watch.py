"""?watch=1: newline-delimited watch events streamed from the cluster's event log.

The stream reads the log itself (docs/architecture.md rule 2): a nudge from
cluster.broadcast.nudge only wakes it early; without one it polls every POLL_SECONDS. It never ends on
its own unless the client asked for timeoutSeconds.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from cluster.api import negotiate
from cluster.api.clusters import find_cluster
from cluster.api.http import error_response, flag
from cluster.api.paths import resolve
from cluster.api.readers import reading
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, Gone, bad_request
from cluster.apiserver.fields import FieldRequirement, fields_match, parse_field_selector
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.selectors import LabelRequirement, labels_match, parse_label_selector
from cluster.broadcast import nudge
from cluster.client import leader
from cluster.controlplane import activity
from cluster.models import Cluster

POLL_SECONDS = 0.2  # without cluster.broadcast.nudge's nudges
NUDGE_FALLBACK_SECONDS = 1.0  # with nudges: read the log on each nudge, and at least this often
BOOKMARK_SECONDS = 10.0
# Without bookmarks, a quiet watch writes a newline this often (JSON decoders skip whitespace): a
# proxy sees traffic, and a client that went away is noticed when the write fails.
KEEPALIVE_SECONDS = 10.0
BATCH = 500


@dataclass(slots=True)
class Watch:
    cluster: Cluster
    info: KindInfo
    namespace: str
    labels: list[LabelRequirement]
    fields: list[FieldRequirement]
    revision: int
    initial: list[dict] | None  # synthetic ADDED events for resourceVersion "" or "0"
    timeout: float | None
    bookmarks: bool
    accept: str
    params: dict = field(default_factory=dict)
    # With selectors: the objects the client believes match, so that an object that stops (or
    # starts) matching arrives as DELETED (or ADDED), as the real watch cache does.
    seen: set[tuple[str, str]] | None = None

    def translate(self, event) -> tuple[str, dict] | None:
        """The event as this watcher should see it, or None."""
        if event.kind != self.info.kind or (self.namespace and event.namespace != self.namespace):
            return None
        matches = labels_match(self.labels, event.object) and fields_match(self.fields, event.object)
        if self.seen is None:
            return (event.type, event.object) if matches else None
        key = (event.namespace, event.name)
        was = key in self.seen
        if event.type == "DELETED":
            self.seen.discard(key)
            return ("DELETED", event.object) if was or matches else None
        if matches:
            self.seen.add(key)
            return ("MODIFIED" if was and event.type != "ADDED" else "ADDED"), event.object
        self.seen.discard(key)
        return ("DELETED", event.object) if was else None


def _number(request: HttpRequest, name: str) -> int | None:
    text = request.GET.get(name, "")
    if text == "":
        return None
    if not text.isdigit():
        raise bad_request(f'{name}: Invalid value: "{text}": must be a non-negative integer')
    return int(text)


def _prepare(request: HttpRequest, cluster_name: str, group: str, version: str, rest: str) -> Watch:
    target = resolve(group, version, rest)
    if target.subresource:
        raise bad_request("watch is not supported on subresources")
    cluster = find_cluster(request, cluster_name, "watch", target)
    selector = request.GET.get("fieldSelector", "")
    if target.name:
        selector = ",".join(filter(None, [selector, f"metadata.name={target.name}"]))
    labels = parse_label_selector(request.GET.get("labelSelector", ""))
    fields = parse_field_selector(target.info.kind, selector)
    start = _number(request, "resourceVersion")
    if start and start < cluster.compacted_revision:
        raise Gone(start, cluster.compacted_revision + 1)
    initial = None
    if target.info.kind == "Lease":
        leader.show_renewal(cluster, target.namespace)
    if not start or labels or fields:
        current, revision = api.list_objects(
            cluster,
            target.info.kind,
            target.namespace or None,
            request.GET.get("labelSelector", ""),
            selector,
            served=True,
        )
        if not start:
            initial, start = current, revision
    seen = (
        {((o["metadata"].get("namespace") or ""), o["metadata"]["name"]) for o in current}
        if labels or fields
        else None
    )
    timeout = _number(request, "timeoutSeconds")
    return Watch(
        cluster,
        target.info,
        target.namespace,
        labels,
        fields,
        start,
        initial,
        float(timeout) if timeout else None,
        flag(request, "allowWatchBookmarks"),
        request.headers.get("Accept", ""),
        dict(request.GET.items()),
        seen,
    )


def _poll(watch: Watch, last: int) -> tuple[list[tuple[str, dict]], int, bool]:
    """Matching events after `last`, the newest revision read and whether more are waiting.

    Raises Gone when the log after `last` was compacted away.
    """
    current = Cluster.objects.filter(pk=watch.cluster.pk).values_list("revision", flat=True).first() or 0
    if current <= last:
        return [], last, False
    found = []
    for event in api.events_since(watch.cluster, last, BATCH):
        last = event.revision
        if (translated := watch.translate(event)) is not None:
            found.append(translated)
    return found, last, last < current


def _line(watch: Watch, kind: str, obj: dict) -> bytes:
    if kind in ("ADDED", "MODIFIED", "DELETED"):
        obj = watch.info.from_stored(obj)  # a watch of another version than the stored one
        obj = negotiate.watch_object(watch.accept, watch.params, watch.info.kind, obj)
    return (json.dumps({"type": kind, "object": obj}, separators=(",", ":")) + "\n").encode()


def _bookmark(watch: Watch, revision: int) -> dict:
    return {
        "kind": watch.info.kind,
        "apiVersion": watch.info.api_version,
        "metadata": {"resourceVersion": str(revision)},
    }


async def _stream(watch: Watch):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + watch.timeout if watch.timeout else None
    yield b""  # the status line and headers go out now, not with the first event
    for obj in watch.initial or ():
        yield _line(watch, "ADDED", obj)
    last, last_mark = watch.revision, loop.time()
    signal = getattr(nudge, "NUDGES", None)
    waiter = signal.subscribe(watch.cluster.name) if signal is not None else None
    activity.watch_started(watch.cluster.name)
    try:
        while True:
            try:
                # Read-only: off the shared thread that serializes the ORM writes.
                events, last, more = await reading(_poll)(watch, last)
            except ApiError as err:
                yield _line(watch, "ERROR", err.status())
                return
            for kind, obj in events:
                yield _line(watch, kind, obj)
            now = loop.time()
            if events and not watch.bookmarks:
                last_mark = now  # an event is as good as a keep-alive
            if watch.bookmarks and now - last_mark >= BOOKMARK_SECONDS:
                yield _line(watch, "BOOKMARK", _bookmark(watch, last))
                last_mark = now
            elif not watch.bookmarks and now - last_mark >= KEEPALIVE_SECONDS:
                yield b"\n"
                last_mark = now
            period = POLL_SECONDS if waiter is None else NUDGE_FALLBACK_SECONDS
            wait = period if deadline is None else min(period, deadline - now)
            if wait <= 0:
                return
            if more:
                continue
            if waiter is not None:
                await waiter.wait(wait)
            else:
                await asyncio.sleep(wait)
    finally:
        activity.watch_ended(watch.cluster.name)
        if waiter is not None:
            waiter.close()


def watch_response(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    """The first list is read here (the request's thread); the stream runs on the event loop."""
    try:
        watch = _prepare(request, cluster, group, version, rest)
    except ApiError as err:
        return error_response(err)
    response = StreamingHttpResponse(_stream(watch), content_type="application/json")
    response["Cache-Control"] = "no-cache, private"
    return response

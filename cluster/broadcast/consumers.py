"""The cluster websocket: a snapshot on connect, then every change and every flow step.

Thin: access check, join the hub, send the snapshot, then the hub writes every newer message to
this socket (cluster/broadcast/sinks.py); ORM work runs in database_sync_to_async. Client actions: next,
continue, pace, step_mode (docs/architecture.md rule 5).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from cluster.apiserver.errors import ApiError
from cluster.auth.access import authorize, caller_of, get_cluster
from cluster.broadcast.hub import hub_for
from cluster.broadcast.sinks import RESYNC, Client, client_for
from cluster.client import leader
from cluster.flow import controls, gate, snapshot, snapshotcache
from cluster.models import Cluster

MAX_FRAME = 1_000_000
# Objects past this are not worth building into a frame: the page fetches the snapshot over HTTP.
MAX_OBJECTS_BYTES = 20 * MAX_FRAME


def _snapshot(cluster: Cluster, view: str) -> snapshotcache.Snapshot:
    """The snapshot (objects spliced in as stored) with its revision and step id, shared with
    every other reader at the same revision and state (cluster/flow/snapshotcache.py)."""
    return snapshotcache.shared(cluster, leader.with_leader({}, cluster), view)


# The languages of the flow steps' texts (`lang=`): every translated text is an {"en", "zh"} pair.
STEP_LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class SocketOptions:
    """The socket URL's options: `view=page` (the snapshot's pods as the page draws them),
    `batch=1` (each hub read as one `batch` message), `events=page` (the object messages' pods
    and events as the page needs them too) and `lang=en|zh` (the flow steps' details in that
    language only; anything else: both)."""

    view: str = "full"
    batched: bool = False
    page_events: bool = False
    lang: str = ""


def _query(scope: dict) -> SocketOptions:
    query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))

    def option(name: str) -> str:
        return (query.get(name) or [""])[-1]

    view, lang = option("view") or "full", option("lang")
    return SocketOptions(
        view=view if view in snapshot.VIEWS else "full",
        batched=option("batch") == "1",
        page_events=option("events") == "page",
        lang=lang if lang in STEP_LANGUAGES else "",
    )


def _visible_cluster(name: str, scope: dict) -> Cluster | None:
    try:
        return get_cluster(scope, name, verb="watch")
    except ApiError:
        return None


def _may_control(scope: dict, cluster: Cluster) -> str:
    """ "" when the socket's caller may drive the flow (a write); else the refusal's message."""
    fresh = Cluster.objects.get(pk=cluster.pk)  # the teacher may have flipped "class may write"
    try:
        authorize(caller_of(scope), fresh, "post", path=f"/clusters/{cluster.name}/flow")
    except ApiError as err:
        return err.message
    return ""


class ClusterConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.cluster_name = self.scope["url_route"]["kwargs"]["cluster"]
        self.client: Client | None = None
        options = _query(self.scope)
        self.view = options.view
        self.cluster = await database_sync_to_async(_visible_cluster)(self.cluster_name, self.scope)
        if self.cluster is None:
            await self.close(code=4404)
            return
        await self.accept()
        self.client = client_for(self.base_send, self._send_text)
        self.client.batched = options.batched
        self.client.page_view = options.page_events
        self.client.lang = options.lang
        await hub_for(self.cluster_name).join(self.client)
        await self._send_snapshot()

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def _send_snapshot(self) -> None:
        """Send a snapshot; the hub holds this client's messages meanwhile, then sends the newer."""
        self.client.pause()
        # Daphne refuses frames over 1 MiB: a big snapshot goes gzipped, and one still too big is
        # fetched over HTTP (GET /clusters/<c>/snapshot, `resync`); the events start from this
        # snapshot's position either way. A cluster whose objects alone are far past the limit is
        # told so at once, without building it.
        if await database_sync_to_async(snapshot.objects_bytes)(self.cluster) > MAX_OBJECTS_BYTES:
            revision, step_id = await database_sync_to_async(snapshot.position)(self.cluster)
            await self.send(text_data=RESYNC)
        else:
            built = await database_sync_to_async(_snapshot)(self.cluster, self.view)
            revision, step_id = built.revision, built.step_id
            if len(built.body) <= min(snapshot.COMPRESS_OVER, MAX_FRAME):
                await self.send(text_data=built.body.decode())
            else:
                # Gzipped, as a binary frame the page inflates (DecompressionStream): a 100-node /
                # 1,000-pod cluster's 2.5 MB of JSON is a few hundred kB. zlib lets go of the GIL
                # while it works: off the event loop and the database thread; made once per
                # snapshot, whichever socket asks first.
                packed = await asyncio.to_thread(built.gzipped)
                if len(packed) <= MAX_FRAME:
                    await self.send(bytes_data=packed)
                else:
                    await self.send(text_data=RESYNC)
        self.client.start(revision, step_id)

    async def disconnect(self, code: int) -> None:
        if self.client is not None:
            self.client.close()
            hub_for(self.cluster_name).leave(self.client)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """A frame from the page: JSON text. Anything else is answered with an error message and
        the socket stays open (a bad frame is the sender's mistake, not the server's)."""
        if text_data is None:
            await self.send_json({"type": "error", "message": "frames must be JSON text, not binary"})
            return
        try:
            content = json.loads(text_data)
        except ValueError:  # not JSON, or a number past Python's 4,300 digits
            await self.send_json({"type": "error", "message": "the frame is not JSON"})
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        action = content.get("action") if isinstance(content, dict) else None
        if action == "snapshot":
            await self._send_snapshot()
            return
        if action not in ("next", "continue", "pace", "step_mode"):
            await self.send_json({"type": "error", "message": f"unknown action {repr(action)[:100]}"})
            return
        try:
            arguments = _arguments(action, content)
        except controls.BadControl as err:
            await self.send_json({"type": "error", "message": str(err)})
            return
        # Flow controls are writes (cluster.auth.access): the teacher, a sandbox's owner, or the class
        # when the teacher lets it write. The socket's Origin was checked when it opened.
        refusal = await database_sync_to_async(_may_control)(self.scope, self.cluster)
        if refusal:
            await self.send_json({"type": "error", "message": refusal})
            return
        await database_sync_to_async(_perform)(self.cluster_name, action, arguments)


def _arguments(action: str, content: dict) -> dict:
    """The action's arguments, checked (cluster.flow.controls); BadControl when of the wrong type."""
    if action == "next":
        return {"trace": controls.trace_id(content.get("trace"))}
    if action == "pace":
        return {"pace_ms": controls.pace_ms(content.get("pace_ms"))}
    if action == "step_mode":
        return {"on": controls.step_mode_on(content.get("on"))}
    return {}


def _perform(cluster_name: str, action: str, arguments: dict) -> None:
    if action == "next":
        gate.release_next(cluster_name, arguments["trace"])
    elif action == "continue":
        gate.continue_all(cluster_name)
    elif action == "pace":
        gate.set_pace(cluster_name, arguments["pace_ms"])
    else:
        gate.set_step_mode(cluster_name, arguments["on"])

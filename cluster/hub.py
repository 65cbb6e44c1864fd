"""The broadcast hub: one reader of the log per cluster per process, fanning out to local sockets.

On each nudge (or every POLL_SECONDS) the hub reads the new log entries and flow steps ONCE,
serializes each message ONCE, and offers the text to every connected client's bounded queue. A
client that falls behind is not waited for: its queue overflows, it is told to resync (reload the
snapshot) and the others stay on time. Object messages carry `prev_revision`, the revision of the
previous object message, so a browser can tell a gap from kinds it was never sent (Leases).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

from channels.db import database_sync_to_async

from cluster import broadcast
from cluster.apiserver import service as api
from cluster.apiserver.errors import Gone
from cluster.flow.recorder import step_message
from cluster.models import Cluster, FlowStep

POLL_SECONDS = 2.0
CLIENT_QUEUE = 2000
SKIPPED_KINDS = frozenset({"Lease"})  # node heartbeats: noise for the browser
RESYNC = json.dumps({"type": "resync"})


@dataclass(slots=True)
class Message:
    text: str
    revision: int = 0  # object messages: the log revision
    step_id: int = 0  # flow.step messages: the step row id


@dataclass(eq=False)
class Client:
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(CLIENT_QUEUE))
    overflowed: bool = False

    def offer(self, message: Message) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.overflowed = True  # the writer sends RESYNC and drops what it held


class Hub:
    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.clients: set[Client] = set()
        self.task: asyncio.Task | None = None
        self.cluster: Cluster | None = None
        self.revision = 0
        self.step_id = 0
        self.prev_revision = 0
        self.settings: tuple[int, bool] | None = None

    async def join(self, client: Client) -> None:
        if self.task is None:
            await database_sync_to_async(self._start_position)()
            self.task = asyncio.create_task(self._run(), name=f"hub/{self.cluster_name}")
        self.clients.add(client)

    def leave(self, client: Client) -> None:
        self.clients.discard(client)
        if not self.clients and self.task is not None:
            self.task.cancel()
            self.task = None
            _hubs.pop(self.cluster_name, None)

    def _start_position(self) -> None:
        self.cluster = Cluster.objects.get(name=self.cluster_name)
        self.revision = self.prev_revision = self.cluster.revision
        latest = (
            FlowStep.objects.filter(trace__cluster=self.cluster).order_by("-pk").values_list("pk", flat=True)
        )
        self.step_id = latest.first() or 0
        self.settings = (self.cluster.pace_ms, self.cluster.step_mode)

    async def _run(self) -> None:
        waiter = broadcast.NUDGES.subscribe(self.cluster_name)
        try:
            while True:
                await self.pump()
                await waiter.wait(POLL_SECONDS)
        finally:
            waiter.close()

    async def pump(self) -> None:
        for message in await database_sync_to_async(self._read)():
            for client in list(self.clients):
                client.offer(message)

    def _read(self) -> list[Message]:
        out: list[Message] = []
        try:
            events = api.events_since(self.cluster, self.revision)
        except Gone:
            self.revision = Cluster.objects.get(pk=self.cluster.pk).revision
            return [Message(RESYNC, self.revision)]
        for event in events:
            self.revision = event.revision
            if event.kind in SKIPPED_KINDS:
                continue
            payload = {
                "type": f"object.{event.type.lower()}",
                "cluster": self.cluster_name,
                "revision": event.revision,
                "prev_revision": self.prev_revision,
                "kind": event.kind,
                "object": event.object,
            }
            self.prev_revision = event.revision
            out.append(Message(json.dumps(payload), revision=event.revision))
        steps = FlowStep.objects.filter(trace__cluster=self.cluster, pk__gt=self.step_id).order_by("pk")
        for step in steps:
            self.step_id = step.pk
            out.append(Message(json.dumps(step_message(step, self.cluster_name)), step_id=step.pk))
        settings = tuple(Cluster.objects.filter(pk=self.cluster.pk).values_list("pace_ms", "step_mode").get())
        if settings != self.settings:
            self.settings = settings
            payload = {"type": "flow.settings", "pace_ms": settings[0], "step_mode": settings[1]}
            out.append(Message(json.dumps(payload)))
        return out


_hubs: dict[str, Hub] = {}


def hub_for(cluster_name: str) -> Hub:
    hub = _hubs.get(cluster_name)
    if hub is None:
        hub = _hubs[cluster_name] = Hub(cluster_name)
    return hub

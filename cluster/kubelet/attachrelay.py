"""Attach across processes: the leading control-plane process serves its containers' attach points
to the web processes (the scale-out profile).

A container's process runs in the `manage.py controlplane` process that leads its cluster, while
kubectl's attach websocket reaches whichever Daphne process nginx picked. That web process
(`cluster/api/attach_consumer.py`) talks to the leader over the channel layer (Redis): each
control-plane process receives on a channel named after its Lease holder identity
(`channel_for`), and answers on the consumer's own channel. The messages:

  web → leader   attach.open   {id, reply, cluster, container_id}
                 attach.stdin  {id, data}      typed input
                 attach.close  {id}            stdin's half-close (v5)
                 attach.detach {id, stdin}     the client left (stdin: it had asked for stdin)
                 attach.alive  {id}            every few seconds while the client stays
  leader → web   attach.opened {id, tty, frames, ended}   the early output, as Point.attach gives it
                 attach.output {id, frames}    [[channel, bytes], …] in the order written
                 attach.end    {id}            the process ended
                 attach.refused {id, reason}   no such point here ("gone") or input flooded

A session not heard from for `SILENT_SECONDS` (its web process died) is detached. Output is sent
in order, coalesced up to `FRAME_BYTES` a message; a reply channel that stays full (its reader
is gone) ends the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import time

from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer

from cluster.controlplane import activity
from cluster.kubelet import attach

logger = logging.getLogger(__name__)

PREFIX = "kubesim-attach."
# A web process says it is still there every ALIVE_SECONDS; silence this long detaches its client.
ALIVE_SECONDS = 5.0
SILENT_SECONDS = 20.0
# Output coalesced into one channel-layer message at most (msgpack'd into Redis).
FRAME_BYTES = 64 * 1024
FULL_RETRY_SECONDS = 5.0
# Sessions one process serves at once: the web processes' own caps count them first
# (cluster/execsessions.py); this only bounds what a flood of opens could hold here.
MAX_SESSIONS = 1000


def channel_for(identity: str) -> str:
    """The channel a control-plane process receives attach requests on (a valid channel name)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", identity)
    if len(safe) > 60:
        safe = safe[:40] + "." + hashlib.sha256(identity.encode()).hexdigest()[:16]
    return PREFIX + safe


class _Session:
    """One remote client of a point: its output goes out through the relay's sender."""

    def __init__(self, relay: Relay, key: str, reply: str, point: attach.Point) -> None:
        self.relay, self.key, self.reply, self.point = relay, key, reply, point
        self.heard = time.monotonic()
        self.queue: asyncio.Queue = asyncio.Queue()
        self.sender: asyncio.Task | None = None

    # The point calls these from the kubelet's thread.
    def send(self, channel: int, data: bytes) -> None:
        self._post((channel, data))

    def end(self) -> None:
        self._post(None)

    def _post(self, item) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone (shutting down)
            self.relay.loop.call_soon_threadsafe(self.queue.put_nowait, item)


class Relay:
    """The control-plane process's side: receives on `channel_for(identity)`."""

    def __init__(self, identity: str) -> None:
        self.channel = channel_for(identity)
        self.layer = get_channel_layer()
        self.sessions: dict[str, _Session] = {}
        self.loop = asyncio.get_running_loop()

    async def run(self) -> None:
        sweeper = asyncio.create_task(self._sweep())
        try:
            while True:
                try:
                    message = await self.layer.receive(self.channel)
                except Exception:  # Redis went away: the web processes' opens time out meanwhile
                    logger.warning("attach relay: channel layer failed; retrying", exc_info=True)
                    await asyncio.sleep(1.0)
                    continue
                try:
                    await self._handle(message)
                except Exception:
                    logger.exception("attach relay: could not handle %s", message.get("type"))
        finally:
            sweeper.cancel()
            for session in list(self.sessions.values()):
                self._drop(session)

    async def _handle(self, message: dict) -> None:
        kind, key = message.get("type"), str(message.get("id") or "")
        if kind == "attach.open":
            await self._open(key, str(message.get("reply") or ""), message)
            return
        session = self.sessions.get(key)
        if session is None:
            return  # ended here already; the web side learns from attach.end
        session.heard = time.monotonic()
        if kind == "attach.stdin":
            if not session.point.feed(bytes(message.get("data") or b"")):
                await self._reply(session.reply, {"type": "attach.refused", "id": key, "reason": "flooded"})
                self._drop(session)
        elif kind == "attach.close":
            session.point.close_stdin()
        elif kind == "attach.detach":
            if message.get("stdin"):
                session.point.close_stdin()
            self._drop(session)

    async def _open(self, key: str, reply: str, message: dict) -> None:
        if not key or not reply.count("!"):  # replies go to a consumer's own channel only
            return
        point = attach.find(str(message.get("cluster") or ""), str(message.get("container_id") or ""))
        if point is None or len(self.sessions) >= MAX_SESSIONS or key in self.sessions:
            await self._reply(reply, {"type": "attach.refused", "id": key, "reason": "gone"})
            return
        session = self.sessions[key] = _Session(self, key, reply, point)
        # As a local attach does: an open session wakes a parked cluster and keeps it running.
        activity.watch_started(point.cluster)
        early, ended = point.attach(session)
        opened = {"type": "attach.opened", "id": key, "tty": point.tty, "ended": ended,
                  "frames": [[channel, data] for channel, data in early]}  # fmt: skip
        if not await self._reply(reply, opened) or ended:
            self._drop(session)
            return
        session.sender = asyncio.create_task(self._send_output(session))

    async def _send_output(self, session: _Session) -> None:
        """The point's output, in order, a few frames a message; then attach.end."""
        while True:
            item = await session.queue.get()
            frames, size, ended = [], 0, item is None
            while item is not None:
                frames.append([item[0], item[1]])
                size += len(item[1])
                if size >= FRAME_BYTES or session.queue.empty():
                    break
                item = session.queue.get_nowait()
                ended = item is None
            if frames and not await self._reply(session.reply, {"type": "attach.output", "id": session.key,
                                                                "frames": frames}):  # fmt: skip
                break
            if ended:
                await self._reply(session.reply, {"type": "attach.end", "id": session.key})
                break
        self._drop(session, from_sender=True)

    async def _reply(self, channel: str, message: dict) -> bool:
        """Send to a consumer; False when its channel stayed full (its reader is gone)."""
        deadline = time.monotonic() + FULL_RETRY_SECONDS
        while True:
            try:
                await self.layer.send(channel, message)
                return True
            except ChannelFull:
                if time.monotonic() > deadline:
                    return False
                await asyncio.sleep(0.1)

    def _drop(self, session: _Session, from_sender: bool = False) -> None:
        if self.sessions.get(session.key) is not session:
            return
        del self.sessions[session.key]
        activity.watch_ended(session.point.cluster)
        session.point.detach(session)
        if session.sender is not None and not from_sender:
            session.sender.cancel()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(ALIVE_SECONDS)
            silent = time.monotonic() - SILENT_SECONDS
            for session in [s for s in self.sessions.values() if s.heard < silent]:
                if session.point.stdin_once:
                    session.point.close_stdin()  # as a client that left
                self._drop(session)


async def serve(identity: str) -> None:
    """Run the relay for this control-plane process until cancelled."""
    await Relay(identity).run()

"""Where the hub's messages go: one Client per websocket, with a bounded backlog.

A message is serialized once by the hub; each client only decides whether to take it. Two ways to
write it:

- under Daphne, `TransportClient` writes a websocket frame built ONCE per message (autobahn's
  PreparedMessage) straight to the connection's transport, and measures its backlog as the bytes
  the transport still holds: that is the real per-client queue, and a client that stops reading
  fills it. Going through the ASGI `send` of every consumer instead costs a chain of coroutines, a
  UTF-8 encode and a framing per client per message, which is what makes Channels' group fan-out
  slow for a lecture hall;
- anywhere else (another ASGI server, Channels' test communicator), `QueueClient` keeps a bounded
  queue that a writer task empties through the ASGI `send`.

Either way a client over its bound is sent nothing more until it has drained, then a `resync`:
the browser reloads the snapshot and nothing is lost silently.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from django.conf import settings
from twisted.internet import tcp

RESYNC = json.dumps({"type": "resync"})
# Messages kept for a client whose snapshot is still being built (then it must resync).
HELD_LIMIT = 5000
QUEUE_LIMIT = 2000  # QueueClient: messages


def backlog_limit() -> int:
    """TransportClient: bytes a client may have waiting in its transport before it lags."""
    return settings.KUBESIM_CLIENT_BACKLOG_BYTES


@dataclass(slots=True)
class Message:
    text: str
    revision: int = 0  # object messages: the log revision
    step_id: int = 0  # flow.step messages: the step row id
    frame: object | None = field(default=None, repr=False)
    # The same message as an `events=page` socket takes it (a Pod as the page draws it,
    # cluster/broadcast/pageview.py), when it differs; such a socket takes `text` when there is none.
    page: Message | None = field(default=None, repr=False)
    # A flow step as a `lang=<code>` socket takes it: its detail in that language only.
    by_lang: dict[str, Message] | None = field(default=None, repr=False)

    def prepared(self):
        """The websocket frame, built on first use and shared by every client of the process."""
        if self.frame is None:
            from autobahn.websocket.protocol import PreparedMessage

            self.frame = PreparedMessage(self.text.encode(), False, False, False)
        return self.frame


RESYNC_MESSAGE = Message(RESYNC)


def variant(message: Message, page: bool, lang: str = "") -> Message:
    """What a socket takes of `message`: its page view or its language's, when it asked for one
    and there is one."""
    if page and message.page is not None:
        return message.page
    if lang and message.by_lang is not None:
        return message.by_lang.get(lang, message)
    return message


class Batch:
    """The messages of one hub read, offered to every client together: a client that takes all of
    them gets them as ONE write of frames joined once for everybody (once per view)."""

    __slots__ = ("_frames", "_joined", "has_page", "langs", "messages", "min_revision", "min_step")

    def __init__(self, messages: list[Message]) -> None:
        self.messages = messages
        self.min_revision = min((m.revision for m in messages if m.revision), default=float("inf"))
        self.min_step = min((m.step_id for m in messages if m.step_id), default=float("inf"))
        self.has_page = any(m.page is not None for m in messages)
        self.langs = {lang for m in messages if m.by_lang for lang in m.by_lang}
        self._frames: dict[tuple[bool, str], bytes] = {}
        self._joined: dict[tuple[bool, str], Message] = {}

    def _view(self, page: bool, lang: str) -> tuple[bool, str]:
        """The view a client takes, as this batch tells them apart (most batches: one for all)."""
        return page and self.has_page, lang if lang in self.langs else ""

    def frames(self, page: bool = False, lang: str = "") -> bytes:
        view = self._view(page, lang)
        if view not in self._frames:
            self._frames[view] = b"".join(variant(m, *view).prepared().payloadHybi for m in self.messages)
        return self._frames[view]

    def joined(self, page: bool = False, lang: str = "") -> Message:
        """The batch as ONE message, `{"type":"batch","messages":[...]}`, for clients that asked
        for it (`?batch=1`): a browser handles each websocket frame as a task of its own, and a
        thousand-pod burst's ten thousand frames kept the page's main thread from drawing."""
        view = self._view(page, lang)
        if view not in self._joined:
            texts = ",".join(variant(m, *view).text for m in self.messages)
            self._joined[view] = Message('{"type":"batch","messages":[' + texts + "]}")
        return self._joined[view]


class Client:
    """One socket's place in the hub. Messages are held until its snapshot has gone out."""

    def __init__(self) -> None:
        self.ready = False
        self.held: list[Message] = []
        self.lagging = False
        self.floor_revision = 0
        self.floor_step = 0
        self.batched = False  # takes a hub read as one `batch` message (Batch.joined)
        self.page_view = False  # `events=page`: takes Pods as the page draws them (Message.page)
        self.lang = ""  # `lang=en|zh`: takes flow steps' details in that language (Message.by_lang)

    def offer(self, message: Message) -> None:
        if not self.ready:
            if len(self.held) < HELD_LIMIT:
                self.held.append(message)
            else:
                self.lagging = True
            return
        if self.lagging:
            return  # dropped: the resync after it drains heals the gap
        if (message.revision and message.revision <= self.floor_revision) or (
            message.step_id and message.step_id <= self.floor_step
        ):
            return  # the snapshot already shows it
        if self.over_limit():
            self.lagging = True
            return
        self.write(variant(message, self.page_view, self.lang))

    def offer_batch(self, batch: Batch) -> None:
        if (
            self.ready
            and not self.lagging
            and batch.min_revision > self.floor_revision
            and batch.min_step > self.floor_step
        ):
            if self.over_limit():
                self.lagging = True
                return
            self.write_batch(batch)
            return
        for message in batch.messages:
            self.offer(message)

    def write_batch(self, batch: Batch) -> None:
        if self.batched and len(batch.messages) > 1:
            self.write(batch.joined(self.page_view, self.lang))
            return
        for message in batch.messages:
            self.write(variant(message, self.page_view, self.lang))

    def start(self, revision: int, step_id: int) -> None:
        """The snapshot at (revision, step_id) went out: send what is newer, then everything."""
        self.floor_revision, self.floor_step = revision, step_id
        self.ready = True
        held, self.held = self.held, []
        for message in held:
            self.offer(message)

    def pause(self) -> None:
        """A new snapshot is being built for this client: hold messages until `start`."""
        self.ready = False

    def heal(self) -> None:
        """A lagging client that has drained gets a resync, then the stream again."""
        if self.lagging and self.ready and self.drained():
            self.lagging = False
            self.write(RESYNC_MESSAGE)

    def write(self, message: Message) -> None:
        raise NotImplementedError

    def over_limit(self) -> bool:
        raise NotImplementedError

    def drained(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        """The socket is gone."""


class TransportClient(Client):
    """Daphne: write prepared frames to the autobahn protocol's transport."""

    def __init__(self, protocol) -> None:
        super().__init__()
        self.protocol = protocol
        self.limit = backlog_limit()
        transport = protocol.transport
        # A plain TCP connection (not TLS) may be written to directly while Twisted holds nothing.
        self.direct = isinstance(transport, tcp.Connection) and not getattr(transport, "TLS", False)

    def write(self, message: Message) -> None:
        self._send(message.prepared().payloadHybi)

    def write_batch(self, batch: Batch) -> None:
        if self.batched and len(batch.messages) > 1:
            self._send(batch.joined(self.page_view, self.lang).prepared().payloadHybi)
            return
        self._send(batch.frames(self.page_view, self.lang))

    def _send(self, data: bytes) -> None:
        """Send now when the socket takes it; Twisted's buffer keeps the rest, in order.

        Twisted's own write only queues the bytes and registers the socket for writing, which
        costs two epoll changes and a loop turn per socket: for a thousand sockets, most of the
        fan-out. When Twisted holds nothing for this socket, a direct send keeps the order.
        """
        protocol = self.protocol
        if protocol.state != protocol.STATE_OPEN:
            return
        transport = protocol.transport
        if self.direct and not transport.dataBuffer and not transport._tempDataLen:
            try:
                sent = transport.socket.send(data)
            except OSError:  # would block, or the peer is gone: Twisted's write finds out
                sent = 0
            if sent == len(data):
                return
            data = data[sent:]
        transport.write(data)

    def backlog(self) -> int:
        transport = self.protocol.transport
        if transport is None:
            return 0
        # Twisted's FileDescriptor: bytes written but not yet accepted by the socket.
        unsent = len(getattr(transport, "dataBuffer", b"")) - getattr(transport, "offset", 0)
        return unsent + getattr(transport, "_tempDataLen", 0)

    def over_limit(self) -> bool:
        return self.backlog() > self.limit

    def drained(self) -> bool:
        return self.backlog() <= self.limit // 4


class QueueClient(Client):
    """Any ASGI server: a bounded queue, emptied by a writer task through `send`."""

    def __init__(self, send: Callable[[str], Awaitable[None]]) -> None:
        super().__init__()
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.writer = asyncio.create_task(self._drain(send))

    async def _drain(self, send: Callable[[str], Awaitable[None]]) -> None:
        while True:
            message = await self.queue.get()
            await send(message.text)

    def write(self, message: Message) -> None:
        self.queue.put_nowait(message)

    def over_limit(self) -> bool:
        return self.queue.qsize() >= QUEUE_LIMIT

    def drained(self) -> bool:
        return self.queue.empty()

    def close(self) -> None:
        self.writer.cancel()


def client_for(base_send, send_text: Callable[[str], Awaitable[None]]) -> Client:
    """The fastest client the server allows: Daphne's ASGI `send` is partial(handle_reply, protocol),
    reached through Channels' session wrapper (which acts on HTTP responses only)."""
    send = base_send
    for _ in range(5):
        if isinstance(send, functools.partial):
            protocol = send.args[0] if send.args else None
            if hasattr(protocol, "sendPreparedMessage") and hasattr(protocol, "transport"):
                return TransportClient(protocol)
            break
        send = getattr(getattr(send, "__self__", None), "real_send", None)
        if send is None:
            break
    return QueueClient(send_text)


class InboxClient(Client):
    """An in-process listener (benchmarks): every message lands in an unbounded queue, no snapshot."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: asyncio.Queue[Message] = asyncio.Queue()
        self.ready = True

    def write(self, message: Message) -> None:
        self.queue.put_nowait(message)

    def over_limit(self) -> bool:
        return False

    def drained(self) -> bool:
        return True

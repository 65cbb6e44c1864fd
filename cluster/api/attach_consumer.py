"""pods/attach over WebSocket: the container's own process, its stdin and output (kubectl attach,
`kubectl run -i/-it`, `kubectl debug -it`).

The same remote-command protocol as exec (`exec_consumer.py`): channel bytes 0 stdin, 1 stdout,
2 stderr, 3 the Status at the end, 255 (v5) stdin's close. The process is the kubelet's
(`cluster/kubelet/attach.py`): typed input wakes it, its output comes back as it writes it, and
the stream ends with a Success Status when the process ends (the kubelet writes no exit code for
attach). Leaving detaches: the process runs on (a `stdinOnce` container's stdin closes). Attach
sessions count as exec sessions (`cluster/execsessions.py`): the same caps per user and cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from cluster import execsessions
from cluster.api.exec_access import exec_cluster
from cluster.api.exec_consumer import _still_running
from cluster.api.exec_status import V5, channel_protocol, status_error, status_frame, status_success
from cluster.api.exec_target import internal_error, parse_options, resolve
from cluster.apiserver.errors import ApiError
from cluster.auth import access
from cluster.controlplane import activity
from cluster.kubelet import attach
from cluster.shell.pods import container_status, running_container_id

STDIN, STDOUT, STDERR, CLOSE = 0, 1, 2, 255
_END = object()
CONTAINER_POLL_SECONDS = 2.0
# Not kubelet words: KubeSim keeps a container's process in the server process that runs its
# cluster's kubelets; another server process (the scale-out profile) cannot reach it.
ELSEWHERE = "KubeSim runs this container's process in another server process; attach to it there"


def _prepare(scope, cluster_name: str, namespace: str, name: str, query: str):
    """(point or None, runtime error, options, container, container id, user, holder)."""
    cluster, user = exec_cluster(scope, cluster_name, namespace, name, "pods/attach")
    holder = execsessions.holder_of(access.caller_of(scope))
    execsessions.check_room(cluster, holder)
    options = parse_options(namespace, name, query)
    pod, container = resolve(cluster, options, attach=True)
    container_id = running_container_id(pod, container)
    # Ended just now, with output its first client has not had (`kubectl run -i -- wget …`).
    ended = attach.find(cluster.name, container_status(pod, container).get("containerID") or "")
    if container_id is None and ended is None:
        return None, f'container not found ("{container}")', options, container, "", user, holder
    point = attach.find(cluster.name, container_id) if container_id else ended
    problem = "" if point is not None else ELSEWHERE
    return point, problem, options, container, container_id or point.container_id, user, holder


class _Client:
    """What the process writes reaches this socket's queue (from the kubelet's thread)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, outbox: asyncio.Queue, tty: bool, options) -> None:
        self.loop, self.outbox, self.tty, self.options = loop, outbox, tty, options

    def _post(self, item) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop is gone (shutting down)
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, item)

    def send(self, channel: int, data: bytes) -> None:
        if self.tty:  # a terminal is one stream
            channel = STDOUT
        if self.options.stdout if channel == STDOUT else self.options.stderr:
            self._post(bytes([channel]) + data)

    def end(self) -> None:
        self._post(status_frame(status_success()))
        self._post(_END)


class AttachConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.point: attach.Point | None = None
        self.client: _Client | None = None
        self.session: dict | None = None
        self.protocol = channel_protocol(self.scope)
        kwargs = self.scope["url_route"]["kwargs"]
        if self.protocol is None:
            await self.close()
            return
        query = (self.scope.get("query_string") or b"").decode("latin1")
        try:
            point, problem, options, container, container_id, user, holder = await database_sync_to_async(
                _prepare
            )(self.scope, kwargs["cluster"], kwargs["namespace"], kwargs["name"], query)
        except ApiError:
            await self.close()  # kubectl falls back to a POST, which the REST view answers
            return
        await self.accept(subprotocol=self.protocol)
        if problem:
            await self.send(bytes_data=status_frame(status_error(internal_error(problem))))
            await self.close()
            return
        try:
            self.session = await database_sync_to_async(execsessions.opened)(
                kwargs["cluster"], options.namespace, options.name, container, [], user,
                "kubectl", point.tty, holder,
            )  # fmt: skip
        except ApiError as err:
            await self.send(bytes_data=status_frame(status_error(err)))
            await self.close()
            return
        self.cluster_name = kwargs["cluster"]
        self.options, self.container, self.container_id = options, container, container_id
        activity.watch_started(self.cluster_name)  # an open session keeps its cluster running
        outbox: asyncio.Queue = asyncio.Queue()
        self.point = point
        self.client = _Client(asyncio.get_running_loop(), outbox, point.tty, options)
        early, ended = point.attach(self.client)
        for channel, data in early:
            self.client.send(channel, data)
        if ended:
            self.client.end()
        self.sender = asyncio.create_task(self._send_all(outbox))
        self.watcher = asyncio.create_task(self._watch_container())

    async def _send_all(self, outbox: asyncio.Queue) -> None:
        try:
            while (frame := await outbox.get()) is not _END:
                await self.send(bytes_data=frame)
            await self.close(code=1000)
        except Exception:  # the caller already left: nothing to tell it
            return

    async def _watch_container(self) -> None:
        """Renew the session's row while it is open; a pod deleted under it ends the stream."""
        renewed = time.monotonic()
        options = self.options
        while True:
            await asyncio.sleep(CONTAINER_POLL_SECONDS)
            where = (self.cluster_name, options.namespace, options.name, self.container, self.container_id)
            if not await database_sync_to_async(_still_running)(*where):
                self.client.end()
                return
            if time.monotonic() - renewed >= execsessions.HEARTBEAT_SECONDS:
                renewed = time.monotonic()
                await database_sync_to_async(execsessions.seen)(self.session)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if self.point is None or not bytes_data or not self.options.stdin:
            return
        channel, data = bytes_data[0], bytes_data[1:]
        if channel == STDIN:
            if not self.point.feed(data):  # flooded: the session ends here
                await self.close(code=1000)
        elif channel == CLOSE and self.protocol == V5 and data[:1] == bytes([STDIN]):
            self.point.close_stdin()

    async def disconnect(self, code: int) -> None:
        if self.point is None:
            return
        self.point.detach(self.client)
        if self.options.stdin:
            self.point.close_stdin()
        self.point = None
        activity.watch_ended(self.cluster_name)
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            watcher.cancel()
        await database_sync_to_async(execsessions.closed)(self.session, None)

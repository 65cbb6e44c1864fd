"""pods/attach over WebSocket: the container's own process, its stdin and output (kubectl attach,
`kubectl run -i/-it`, `kubectl debug -it`).

The same remote-command protocol as exec (`exec_consumer.py`): channel bytes 0 stdin, 1 stdout,
2 stderr, 3 the Status at the end, 255 (v5) stdin's close. The process is the kubelet's
(`cluster/kubelet/attach.py`): typed input wakes it, its output comes back as it writes it, and
the stream ends with a Success Status when the process ends (the kubelet writes no exit code for
attach). Leaving detaches: the process runs on (a `stdinOnce` container's stdin closes). Attach
sessions count as exec sessions (`cluster/execsessions.py`): the same caps per user and cluster.

In the scale-out profile the process runs in the control-plane process that leads its cluster,
not in this web process: the consumer then reaches it through the channel layer
(`attach_remote.RemotePoint` here, `cluster/kubelet/attachrelay.py` there), the same streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from cluster import execsessions
from cluster.api.attach_remote import RemotePoint
from cluster.api.exec_access import exec_cluster
from cluster.api.exec_consumer import _still_running
from cluster.api.exec_status import V5, channel_protocol, status_error, status_frame, status_success
from cluster.api.exec_target import internal_error, parse_options, resolve
from cluster.apiserver.errors import ApiError
from cluster.auth import access
from cluster.client import leader
from cluster.controlplane import activity
from cluster.kubelet import attach, attachrelay
from cluster.shell.pods import container_status, running_container_id

STDIN, STDOUT, STDERR, CLOSE = 0, 1, 2, 255
_END = object()
CONTAINER_POLL_SECONDS = 2.0
# Not kubelet words. A running container whose process KubeSim does not have: its cluster's control
# plane was stopped for good and started again, which takes the pods back without their
# processes (docs/containers.md, "When the server restarts").
NO_PROCESS = (
    "KubeSim has no process for this container to attach to (its cluster's control plane was "
    "stopped and started again); delete the pod to start a new one"
)
# The scale-out profile: nobody leads the cluster right now (a takeover is under way), or the
# leader did not answer in time.
NO_LEADER = "no control-plane process leads this pod's cluster right now; try again in a few seconds"
LEADER_SILENT = "the control-plane process that runs this container did not answer"
OPEN_TIMEOUT_SECONDS = 5.0


@dataclass
class _Target:
    point: attach.Point | None  # here, in this process
    relay: str  # or the relay channel of the control-plane process that runs it
    problem: str  # or why it cannot be attached to
    options: object
    container: str
    container_id: str
    user: str
    holder: str
    tty: bool = False


def _spec_tty(pod: dict, name: str) -> bool:
    spec = pod.get("spec") or {}
    every = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    every += spec.get("ephemeralContainers") or []
    return any(c.get("name") == name and c.get("tty") for c in every)


def _prepare(scope, cluster_name: str, namespace: str, name: str, query: str) -> _Target:
    cluster, user = exec_cluster(scope, cluster_name, namespace, name, "pods/attach")
    holder = execsessions.holder_of(access.caller_of(scope))
    execsessions.check_room(cluster, holder)
    options = parse_options(namespace, name, query)
    pod, container = resolve(cluster, options, attach=True)
    container_id = running_container_id(pod, container)
    last_id = container_status(pod, container).get("containerID") or ""
    # Running: its process; ended just now: its output the first client has not had yet
    # (`kubectl run -i -- wget …`).
    point = attach.find(cluster.name, container_id or last_id)
    if point is not None:
        return _Target(point, "", "", options, container, point.container_id, user, holder)
    if leader.election_needed() and (container_id or last_id):
        # The scale-out profile: the process runs in the control-plane process that leads.
        found = (leader.current(cluster) or {}).get("holder")
        relay = attachrelay.channel_for(found) if found else ""
        problem = "" if found else NO_LEADER
        tty = _spec_tty(pod, container)
        return _Target(None, relay, problem, options, container, container_id or last_id, user, holder, tty)
    problem = NO_PROCESS if container_id else f'container not found ("{container}")'
    return _Target(None, "", problem, options, container, container_id or "", user, holder)


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
        self.point: attach.Point | RemotePoint | None = None
        self.client: _Client | None = None
        self.session: dict | None = None
        self.protocol = channel_protocol(self.scope)
        kwargs = self.scope["url_route"]["kwargs"]
        if self.protocol is None:
            await self.close()
            return
        query = (self.scope.get("query_string") or b"").decode("latin1")
        try:
            target = await database_sync_to_async(_prepare)(
                self.scope, kwargs["cluster"], kwargs["namespace"], kwargs["name"], query
            )
        except ApiError:
            await self.close()  # kubectl falls back to a POST, which the REST view answers
            return
        await self.accept(subprotocol=self.protocol)
        if target.problem:
            await self._fail(target.problem)
            return
        point, options = target.point, target.options
        try:
            self.session = await database_sync_to_async(execsessions.opened)(
                kwargs["cluster"], options.namespace, options.name, target.container, [], target.user,
                "kubectl", point.tty if point is not None else target.tty, target.holder,
            )  # fmt: skip
        except ApiError as err:
            await self.send(bytes_data=status_frame(status_error(err)))
            await self.close()
            return
        self.cluster_name = kwargs["cluster"]
        self.options, self.container, self.container_id = options, target.container, target.container_id
        activity.watch_started(self.cluster_name)  # an open session keeps its cluster running
        self.outbox: asyncio.Queue = asyncio.Queue()
        if point is not None:
            self.point = point
            self._start(point.tty, *point.attach(self._new_client(point.tty)))
        else:
            self.point = RemotePoint(self.channel_layer, target.relay, self.channel_name, self.cluster_name,
                                     target.container_id, options.stdin)  # fmt: skip
            self.point.open()
            self.opening = asyncio.create_task(self._await_leader())
        self.watcher = asyncio.create_task(self._watch_container())

    def _new_client(self, tty: bool) -> _Client:
        self.client = _Client(asyncio.get_running_loop(), self.outbox, tty, self.options)
        return self.client

    def _start(self, tty: bool, early, ended: bool) -> None:
        """The point took the client: what it printed first, then everything as it comes."""
        for channel, data in early:
            self.client.send(channel, bytes(data))
        if ended:
            self.client.end()
        self.sender = asyncio.create_task(self._send_all(self.outbox))

    async def _fail(self, problem: str) -> None:
        await self.send(bytes_data=status_frame(status_error(internal_error(problem))))
        await self.close()

    # -- the leading control-plane process's answers (scale-out) --------------------------------
    async def _await_leader(self) -> None:
        await asyncio.sleep(OPEN_TIMEOUT_SECONDS)
        if self.client is None and isinstance(self.point, RemotePoint):
            await self._fail(LEADER_SILENT)

    async def attach_opened(self, event: dict) -> None:
        if not isinstance(self.point, RemotePoint) or not self.point.mine(event) or self.client:
            return
        self.opening.cancel()
        self.point.tty = bool(event.get("tty"))
        self._new_client(self.point.tty)
        self._start(self.point.tty, event.get("frames") or [], bool(event.get("ended")))

    def _ours(self, event: dict) -> bool:
        return self.client is not None and isinstance(self.point, RemotePoint) and self.point.mine(event)

    async def attach_output(self, event: dict) -> None:
        if self._ours(event):
            for channel, data in event.get("frames") or []:
                self.client.send(channel, bytes(data))

    async def attach_end(self, event: dict) -> None:
        if self._ours(event):
            self.client.end()

    async def attach_refused(self, event: dict) -> None:
        if not isinstance(self.point, RemotePoint) or not self.point.mine(event):
            return
        if event.get("reason") == "flooded":  # as a local point's feed refusing it
            await self.close(code=1000)
            return
        self.opening.cancel()
        running = await database_sync_to_async(_still_running)(*self._where())
        await self._fail(NO_PROCESS if running else f'container not found ("{self.container}")')

    def _where(self) -> tuple:
        options = self.options
        return (self.cluster_name, options.namespace, options.name, self.container, self.container_id)

    # -- the stream ------------------------------------------------------------------------------
    async def _send_all(self, outbox: asyncio.Queue) -> None:
        try:
            while (frame := await outbox.get()) is not _END:
                await self.send(bytes_data=frame)
            await self.close(code=1000)
        except Exception:  # the caller already left: nothing to tell it
            return

    async def _watch_container(self) -> None:
        """Renew the session's row while it is open; a pod deleted under it ends the stream; a
        remote leader hears that the client is still here."""
        renewed = alive = time.monotonic()
        while True:
            await asyncio.sleep(CONTAINER_POLL_SECONDS)
            if not await database_sync_to_async(_still_running)(*self._where()):
                if self.client is not None:
                    self.client.end()
                return
            if isinstance(self.point, RemotePoint) and time.monotonic() - alive >= attachrelay.ALIVE_SECONDS:
                alive = time.monotonic()
                self.point.alive()
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
        point, self.point = self.point, None
        point.detach(self.client)
        if self.options.stdin and not isinstance(point, RemotePoint):  # the remote detach says so
            point.close_stdin()
        activity.watch_ended(self.cluster_name)
        for task in (getattr(self, "watcher", None), getattr(self, "opening", None)):
            if task is not None:
                task.cancel()
        if isinstance(point, RemotePoint):
            await point.close()
        await database_sync_to_async(execsessions.closed)(self.session, None)

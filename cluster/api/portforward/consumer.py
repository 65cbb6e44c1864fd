"""pods/portforward over WebSocket, as kube-apiserver serves kubectl 1.31+ (PortForwardWebsockets).

kubectl offers the subprotocol `SPDY/3.1+portforward.k8s.io` and then speaks SPDY/3.1 inside
the WebSocket's binary messages (client-go's TunnelingConnection). Who may exec may port-forward:
`create` on `pods/portforward`, checked before the upgrade. A refused upgrade makes kubectl retry
with a raw SPDY upgrade (a POST), which the REST view answers with the Status kubectl prints.

A session is counted with the exec sessions (the same per-user, per-cluster and per-server caps,
shown among them as `port-forward`), ends when the client goes, when the pod is gone, after
KUBESIM_PORTFORWARD_IDLE_SECONDS without a forwarded byte, or past KUBESIM_PORTFORWARD_MAX_BYTES.
Frames are handled in order in a worker thread (serving a page reads the container's files).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import close_old_connections

from cluster import execsessions
from cluster.api.exec_access import exec_cluster
from cluster.api.portforward.session import Limits, PortForwardSession
from cluster.api.portforward.target import pod_for_forward, still_there
from cluster.api.portforward.upstream import open_port
from cluster.apiserver.errors import ApiError
from cluster.auth import access
from cluster.models import Cluster

logger = logging.getLogger(__name__)

PROTOCOL = "SPDY/3.1+portforward.k8s.io"
POLL_SECONDS = 2.0
COMMAND = ["port-forward"]  # how the session is listed among the exec sessions
_END = object()
MAX_QUEUED = 1024  # messages waiting for the worker


def _prepare(scope, cluster_name: str, namespace: str, name: str):
    """(cluster, pod, user, holder) or raises ApiError: every check before accepting."""
    cluster, user = exec_cluster(scope, cluster_name, namespace, name, "pods/portforward")
    holder = execsessions.holder_of(access.caller_of(scope))
    execsessions.check_room(cluster, holder)
    pod = pod_for_forward(cluster, namespace, name)
    return cluster, pod, user, holder


def _handle(session: PortForwardSession, data: bytes | None) -> list[bytes]:
    """Worker thread: one message's frames (None: the clock's turn)."""
    close_old_connections()
    try:
        return session.tick() if data is None else session.receive(data)
    finally:
        close_old_connections()


class PortForwardConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.session_row: dict | None = None
        self.inbox: asyncio.Queue = asyncio.Queue()
        kwargs = self.scope["url_route"]["kwargs"]
        if PROTOCOL not in (self.scope.get("subprotocols") or []):
            await self.close()
            return
        try:
            cluster, pod, user, holder = await database_sync_to_async(_prepare)(
                self.scope, kwargs["cluster"], kwargs["namespace"], kwargs["name"]
            )
            self.session_row = await database_sync_to_async(execsessions.opened)(
                cluster.name, kwargs["namespace"], kwargs["name"], "", COMMAND, user, "kubectl", False, holder
            )
        except ApiError:
            await self.close()  # kubectl falls back to a POST, which the REST view answers
            return
        await self.accept(subprotocol=PROTOCOL)
        limits = Limits(settings.KUBESIM_PORTFORWARD_MAX_CONNECTIONS, settings.KUBESIM_PORTFORWARD_MAX_BYTES)
        self.session = PortForwardSession(lambda port: open_port(cluster, pod, port), limits)
        self.worker = asyncio.create_task(self._work())
        self.watcher = asyncio.create_task(self._watch(cluster, pod))

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if self.session_row is None:
            return
        if bytes_data is None:  # client-go's TunnelingConnection sends binary messages only
            await self.close(code=1003)
            return
        if self.inbox.qsize() >= MAX_QUEUED:  # a client far ahead of its answers
            await self.close(code=1008)
            return
        self.inbox.put_nowait(bytes_data)

    async def _work(self) -> None:
        """One message at a time, in order; what the session answers goes out before the next."""
        handle = sync_to_async(_handle, thread_sensitive=False)
        try:
            while (data := await self.inbox.get()) is not _END:
                out = await handle(self.session, data)
                for frame in out:
                    await self.send(bytes_data=frame)
                if self.session.ended:
                    await self.close(code=1000)
                    return
        except Exception:  # the client already left, or the pod's server failed
            logger.exception("port-forward to %s failed", self.scope["url_route"]["kwargs"].get("name"))
            with contextlib.suppress(Exception):
                await self.close(code=1011)

    async def _watch(self, cluster: Cluster, pod: dict) -> None:
        """The clock: idle keep-alive connections, the session's idle limit, the pod's life and the
        session's heartbeat."""
        renewed = time.monotonic()
        idle = settings.KUBESIM_PORTFORWARD_IDLE_SECONDS
        while True:
            await asyncio.sleep(POLL_SECONDS)
            self.inbox.put_nowait(None)
            if time.monotonic() - self.session.data_at >= idle:
                break
            if not await database_sync_to_async(still_there)(cluster, pod):
                break
            if time.monotonic() - renewed >= execsessions.HEARTBEAT_SECONDS:
                renewed = time.monotonic()
                await database_sync_to_async(execsessions.seen)(self.session_row)
        await self.close(code=1000)

    async def disconnect(self, code: int) -> None:
        if self.session_row is None:
            return
        row, self.session_row = self.session_row, None
        self.session.close()
        self.inbox.put_nowait(_END)
        self.watcher.cancel()
        await database_sync_to_async(execsessions.closed)(row, None)

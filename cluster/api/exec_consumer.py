"""pods/exec over WebSocket, as kube-apiserver serves kubectl 1.30+ (the remote-command protocol).

Each binary message starts with a channel byte: 0 stdin, 1 stdout, 2 stderr, 3 the error channel
(one Status at the end: Success, or Failure/NonZeroExitCode with an ExitCode cause), 4 terminal
resize; v5 adds 255, a half-close (`[255, 0]`: stdin is done). Anything refused before the
upgrade closes the handshake (HTTP 403); kubectl then retries over SPDY as a POST to the same path,
and the REST view answers that with the precise Status, which kubectl prints.

The shell runs in a thread of its own (it may wait for stdin); its output comes back to the event
loop through a queue, in order, and the Status goes last.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import connections

from cluster import execsessions
from cluster.api.exec_access import exec_cluster
from cluster.api.exec_status import (
    V5,
    channel_protocol,
    status_error,
    status_exit,
    status_frame,
    status_success,
)
from cluster.api.exec_target import internal_error, parse_options, resolve, runtime_error
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.auth import access
from cluster.models import Cluster
from cluster.shell.pods import context_for, running_container_id
from cluster.shell.session import run_exec
from cluster.shell.streams import Closed, InputStream, NoInput

logger = logging.getLogger(__name__)

# Channel bytes (3, the error channel, is exec_status.ERROR_CHANNEL; 4, resize, is not used).
STDIN, STDOUT, STDERR, CLOSE = 0, 1, 2, 255
_END = object()
CONTAINER_POLL_SECONDS = 2.0


def _still_running(cluster_name: str, namespace: str, pod: str, container: str, container_id: str) -> bool:
    cluster = Cluster.objects.filter(name=cluster_name).first()
    try:
        current = api.get(cluster, "Pod", namespace, pod) if cluster else None
    except ApiError:
        return False
    if current is None or current["metadata"].get("deletionTimestamp"):
        return False
    return running_container_id(current, container) == container_id


def _prepare(scope, cluster_name: str, namespace: str, name: str, query: str):
    """(context, options, container, runtime error, user name, holder) or raises ApiError: every
    check before accepting."""
    cluster, user = exec_cluster(scope, cluster_name, namespace, name)
    holder = execsessions.holder_of(access.caller_of(scope))
    execsessions.check_room(cluster, holder)
    options = parse_options(namespace, name, query)
    pod, container = resolve(cluster, options)
    problem = runtime_error(pod, container)
    ctx = None if problem else context_for(cluster, pod, container, options.tty)
    return ctx, options, container, problem, user, holder


class ExecConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.stdin: InputStream | None = None
        self.session: dict | None = None
        self.protocol = channel_protocol(self.scope)
        kwargs = self.scope["url_route"]["kwargs"]
        if self.protocol is None:
            await self.close()
            return
        query = (self.scope.get("query_string") or b"").decode("latin1")
        try:
            ctx, options, container, problem, user, holder = await database_sync_to_async(_prepare)(
                self.scope, kwargs["cluster"], kwargs["namespace"], kwargs["name"], query
            )
        except ApiError:
            await self.close()  # kubectl falls back to a POST, which the REST view answers
            return
        await self.accept(subprotocol=self.protocol)
        if problem:
            await self._send_status(status_error(internal_error(problem)))
            await self.close()
            return
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.stdin = InputStream() if options.stdin else NoInput()
        client = self._client()
        try:
            self.session = await database_sync_to_async(execsessions.opened)(
                ctx.cluster,
                ctx.namespace,
                ctx.pod,
                container,
                options.command,
                user,
                client,
                options.tty,
                holder,
            )
        except ApiError as err:  # the room went to another session meanwhile
            await self._send_status(status_error(err))
            await self.close()
            return
        loop = asyncio.get_running_loop()
        self.sender = asyncio.create_task(self._send_all())
        self.watcher = asyncio.create_task(self._watch_container(kwargs["cluster"], ctx))
        threading.Thread(
            target=self._run, args=(ctx, options, loop), name=f"exec/{ctx.pod}", daemon=True
        ).start()

    def _client(self) -> str:
        headers = dict(self.scope.get("headers") or [])
        agent = headers.get(b"user-agent", b"").decode("latin1")
        return "kubectl" if agent.startswith("kubectl") else "web" if b"origin" in headers else "api"

    def _run(self, ctx, options, loop: asyncio.AbstractEventLoop) -> None:
        """The shell's thread: run the command, queue its output, then the Status."""

        def post(item) -> None:
            with contextlib.suppress(RuntimeError):  # the event loop is gone (shutting down)
                loop.call_soon_threadsafe(self.outbox.put_nowait, item)

        def write(channel: int, text: str) -> None:
            if (channel == STDOUT and options.stdout) or (channel == STDERR and options.stderr):
                post(bytes([channel]) + text.encode("utf-8", "surrogateescape"))

        code: int | None = None
        try:
            code = run_exec(ctx, options.command, self.stdin, write)
            post(status_frame(status_success() if code == 0 else status_exit(code, self.protocol)))
        except Closed:
            pass
        except Exception:
            logger.exception("exec in %s/%s failed", ctx.namespace, ctx.pod)
            cause = "error executing command in container"
            details = {"causes": [{"message": cause}]}  # NewInternalError's
            post(
                status_frame(
                    status_error(ApiError(500, "InternalError", f"Internal error occurred: {cause}", details))
                )
            )
        finally:
            try:
                execsessions.closed(self.session, code)
            finally:
                connections.close_all()  # this thread's own connection
                post(_END)

    async def _watch_container(self, cluster_name: str, ctx) -> None:
        """The session lives as long as its container: a deleted pod or a restarted container
        kills the exec'd process (exit 137), as the runtime does."""
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(CONTAINER_POLL_SECONDS)
            where = (cluster_name, ctx.namespace, ctx.pod, ctx.container, ctx.container_id)
            alive = await database_sync_to_async(_still_running)(*where)
            if not alive:
                self.stdin.kill(137)
                return
            if time.monotonic() - renewed >= execsessions.HEARTBEAT_SECONDS:
                renewed = time.monotonic()
                await database_sync_to_async(execsessions.seen)(self.session)

    async def _send_all(self) -> None:
        try:
            while (frame := await self.outbox.get()) is not _END:
                await self.send(bytes_data=frame)
            await self.close(code=1000)
        except Exception:  # the caller already left: nothing to tell it
            return

    async def _send_status(self, status: dict) -> None:
        await self.send(bytes_data=status_frame(status))

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if self.stdin is None or not bytes_data:
            return
        channel, data = bytes_data[0], bytes_data[1:]
        if channel == STDIN:
            self.stdin.feed(data)
            if self.stdin.aborted:  # flooded: the session ends here
                await self.close(code=1000)
        elif channel == CLOSE and self.protocol == V5 and data[:1] == bytes([STDIN]):
            self.stdin.close()
        # RESIZE: the simulated programs do not lay out by the terminal's size.

    async def disconnect(self, code: int) -> None:
        if self.stdin is not None:
            self.stdin.abort()
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            watcher.cancel()

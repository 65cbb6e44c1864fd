"""Connections and handles: held while needed, released after, under a 1,024-file limit.

500 watches are opened at the same time against a server running under `ulimit -n 1024`; each
gets its status line and headers at once and then its events; once they close, the server's open
files return to their baseline. A burst of 500 connections is absorbed by the listen backlog, and
a client that sends its request head too slowly is cut off, while a watch runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import subprocess
import sys
import time

from django.conf import settings

from bench.hostile.bodies import valid
from bench.hostile.client import Client
from tests.scaleout.support import ROOT, free_port, wait_for

WATCHES = 500


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def serve_limited(processes, nofile: int = 1024, **env: str) -> tuple[subprocess.Popen, Client]:
    """`manage.py serve` under RLIMIT_NOFILE = nofile (as `ulimit -n` would set it)."""
    port = free_port()
    log = open(processes.logs / f"serve-{port}.log", "wb")  # noqa: SIM115 (closed with the process)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    child = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env={**processes.env, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=limit,
    )
    child.log = log
    processes.children.append(child)
    client = Client(f"http://127.0.0.1:{port}")
    wait_for(lambda: _answers(client), 60, "the server")
    return child, client


def _answers(client: Client) -> bool:
    try:
        return client.request("GET", "/clusters/demo/snapshot").status == 200
    except OSError:
        return False


Opened = tuple[asyncio.StreamReader, asyncio.StreamWriter, float]


async def open_watch(client: Client, revision: int) -> Opened:
    reader, writer = await asyncio.open_connection(client.host, client.port)
    path = client.path("Pod") + f"?watch=1&resourceVersion={revision}"
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {client.host}\r\nAccept: application/json\r\n\r\n".encode())
    started = time.monotonic()
    status = await asyncio.wait_for(reader.readline(), 30)
    assert status.startswith(b"HTTP/1.1 200"), status
    while await asyncio.wait_for(reader.readline(), 30) not in (b"\r\n", b""):
        pass  # the headers, sent before any event
    return reader, writer, time.monotonic() - started


async def watches_see_a_change(client: Client, count: int) -> tuple[int, float]:
    revision = int(client.request("GET", client.path("Pod")).json()["metadata"]["resourceVersion"])
    opened = await asyncio.gather(*(open_watch(client, revision) for _ in range(count)))
    slowest_head = max(seconds for _, _, seconds in opened)
    answer = await asyncio.to_thread(client.create, valid("Pod", f"seen-{count}-{time.monotonic_ns()}"))
    assert answer.status == 201

    async def added(reader: asyncio.StreamReader) -> bool:
        while True:
            line = await asyncio.wait_for(reader.readline(), 60)
            if b'"ADDED"' in line:
                return True

    seen = sum(await asyncio.gather(*(added(reader) for reader, _, _ in opened)))
    for _, writer, _ in opened:
        writer.close()
    await asyncio.gather(*(writer.wait_closed() for _, writer, _ in opened), return_exceptions=True)
    return seen, slowest_head


def test_500_concurrent_watches_leave_no_handles_behind(embedded):
    server, client = serve_limited(embedded)
    started = open_files(server.pid)
    # The first round fills the bounded pools (request threads, stream readers: a database
    # connection each); the second must leave exactly what the first left.
    for round_ in (1, 2):
        seen, slowest_head = asyncio.run(watches_see_a_change(client, WATCHES))
        assert seen == WATCHES
        assert slowest_head < 15, f"a watch waited {slowest_head:.1f} s for its headers"
        if round_ == 1:
            time.sleep(12.0)  # closed streams end; Daphne reaps any it had to cancel
            baseline = open_files(server.pid)
            assert baseline - started < 64, f"{started} open files grew to {baseline} after one round"
    wait_for(lambda: open_files(server.pid) <= baseline, 15, f"open files back to {baseline}")
    assert server.poll() is None


def test_a_burst_of_500_connections_is_absorbed(embedded):
    _, client = serve_limited(embedded)

    async def one() -> int:
        reader, writer = await asyncio.open_connection(client.host, client.port)
        head = b"GET /clusters/demo/api/v1/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        writer.write(head)
        status = await asyncio.wait_for(reader.readline(), 60)
        writer.close()
        return int(status.split()[1])

    async def burst() -> list:
        return await asyncio.gather(*(one() for _ in range(500)), return_exceptions=True)

    answers = asyncio.run(burst())
    # Every connection gets an answer (none reset or refused): the nodes, or, past the address's
    # anonymous reads a minute, a 429 Status.
    assert [a for a in answers if a not in (200, 429)] == []
    assert 0 < answers.count(200) <= settings.KUBESIM_ANONYMOUS_READS_PER_MINUTE


def test_a_slow_request_head_is_cut_off_but_a_long_watch_is_not(embedded):
    deadlines = {"KUBESIM_REQUEST_IDLE_SECONDS": "2", "KUBESIM_REQUEST_DEADLINE_SECONDS": "4"}
    _, client = serve_limited(embedded, **deadlines)

    async def scenario() -> tuple[float, float, bool]:
        revision = int(client.request("GET", client.path("Pod")).json()["metadata"]["resourceVersion"])
        reader, writer, _ = await open_watch(client, revision)
        began = time.monotonic()
        silent_reader, silent = await asyncio.open_connection(client.host, client.port)
        silent.write(b"GET /clusters/demo/api/v1/nodes HTTP/1.1\r\n")  # then nothing
        trickle_reader, trickle = await asyncio.open_connection(client.host, client.port)
        trickle.write(b"GET /clusters/demo/api/v1/nodes HTTP/1.1\r\n")

        async def drip() -> float:
            for _ in range(20):  # a header byte every second: never idle for 2 s
                await asyncio.sleep(1.0)
                if trickle_reader.at_eof() or trickle.is_closing():
                    break
                trickle.write(b"X")
            return time.monotonic() - began

        async def closed(stream: asyncio.StreamReader) -> float:
            with contextlib.suppress(ConnectionResetError):  # aborted: as closed as it gets
                await asyncio.wait_for(stream.read(), 30)
            return time.monotonic() - began

        silent_after, (trickle_after, _) = await asyncio.gather(
            closed(silent_reader), asyncio.gather(closed(trickle_reader), drip())
        )
        await asyncio.to_thread(client.create, valid("Pod", "after-the-deadline"))
        line = b""
        while b'"ADDED"' not in line:
            line = await asyncio.wait_for(reader.readline(), 30)
        writer.close()
        return silent_after, trickle_after, time.monotonic() - began > 4

    silent_after, trickle_after, outlived = asyncio.run(scenario())
    assert silent_after < 4, "an idle request head was not timed out"
    assert trickle_after < 8, "a trickling request head outlived its deadline"
    assert outlived, "the watch should outlive the request deadline and still get events"

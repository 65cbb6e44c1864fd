"""Measure the broadcast's fan-out: N websocket clients watch one cluster, pods are created.

For each pod: the time from the POST to each client's last flow step of the pod's trace (the
control plane's work plus the broadcast), and the time from each step's recording to its arrival
at each client (the broadcast alone); p50 and p99 over all clients and pods, the clients that
missed a step (or got one twice, or a resync), and the server's memory per client (RSS growth
while the clients connect / N).

Without --url it starts its own embedded server (`manage.py serve` on a throwaway SQLite database,
pace 0); with --url (repeatable: clients are spread over the URLs, e.g. two Daphne processes) it
measures a running server, and --pid (repeatable) names the server processes whose memory to read.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import BaseCommand, CommandError

from bench.server import ThrowawayServer
from bench.wsclient import Crowd, auth_header, wall_offset


def teacher_token() -> str:
    """The teacher's credentials: the presenter token in the state directory (KUBESIM_STATE_DIR)."""
    from cluster.auth.access import presenter_token

    return presenter_token()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class KeepAlive:
    """One kept-alive HTTP/1.1 connection for the pods' POSTs: a request's clock starts as its bytes
    are written, not while a fresh connection is opened (urllib in a thread costs milliseconds)."""

    def __init__(self, url: str, token: str = "") -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: dict) -> tuple[int, float]:
        """Send; return the status and the perf_counter() time the request was written."""
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            f"User-Agent: kubesim-bench-fanout\r\n{auth_header(self.token)}Connection: keep-alive\r\n\r\n"
        )
        sent = time.perf_counter()
        self.writer.write(head.encode() + data)
        status_line = await self.reader.readline()
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            while size := int((await self.reader.readline()).strip() or b"0", 16):
                await self.reader.readexactly(size + 2)
            await self.reader.readline()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return int(status_line.split()[1]), sent

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def _request(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("User-Agent", "kubesim-bench-fanout")
    request.add_header("Authorization", f"Bearer {teacher_token()}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _perf_time(iso: str) -> float:
    """A step's recorded timestamp as perf_counter() time."""
    return datetime.fromisoformat(iso).timestamp() - wall_offset()


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


@dataclass
class Tally:
    """Seconds, gathered over all pods (and clients)."""

    latencies: list[float] = field(default_factory=list)  # POST → a client's last step of the pod
    accepts: list[float] = field(default_factory=list)  # POST → the pod's first step recorded
    chains: list[float] = field(default_factory=list)  # first → last step recorded
    delays: list[float] = field(default_factory=list)  # a step recorded → it reached a client
    missed: set[int] = field(default_factory=set)


class Command(BaseCommand):
    help = "Open N websocket clients, create pods, measure POST → each client's last flow step."

    def add_arguments(self, parser):
        parser.add_argument("--clients", type=int, default=200)
        parser.add_argument("--url", action="append", default=[], help="server base URL (repeatable)")
        parser.add_argument("--pid", type=int, action="append", default=[], help="server pid (repeatable)")
        parser.add_argument("--cluster", default="demo")
        parser.add_argument("--pods", type=int, default=3, help="pods to create, one after another")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, clients: int, url: list[str], pid: list[int], cluster: str, pods: int, **options):
        if url:
            result = asyncio.run(self._bench(url, pid, cluster, clients, pods))
        else:
            with ThrowawayServer("kubesim-fanout-") as server:
                result = asyncio.run(self._bench([server.url], [server.process.pid], cluster, clients, pods))
        result["setup"] = "embedded" if not url else f"{len(url)} server(s)"
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(
            f"{result['clients']} clients, {result['pods']} pods ({result['setup']}): "
            f"POST → last step p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
            f"max {result['max_ms']:.1f} ms; clients that missed steps: {result['missed']}; "
            f"server memory per client: {result['kib_per_client']:.0f} KiB\n"
            f"  where the time goes (p50 / p99): POST → step 1 recorded "
            f"{result['accept_p50_ms']:.1f} / {result['accept_p99_ms']:.1f} ms; "
            f"step 1 → step 13 recorded (the control plane) "
            f"{result['chain_p50_ms']:.1f} / {result['chain_p99_ms']:.1f} ms; "
            f"step recorded → delivered (the broadcast) "
            f"{result['delivery_p50_ms']:.1f} / {result['delivery_p99_ms']:.1f} ms"
        )

    async def _bench(self, urls: list[str], pids: list[int], cluster: str, count: int, pods: int) -> dict:
        base = urls[0].rstrip("/")
        pace = _request(f"{base}/clusters/{cluster}/snapshot")["pace_ms"]
        rss_before = sum(_rss_kib(p) for p in pids)
        crowd = Crowd()
        poster = KeepAlive(base, teacher_token())
        tally = Tally()
        try:
            await crowd.open(urls, f"/ws/clusters/{cluster}/", count, token=teacher_token())
            await self._wait_for_snapshots(crowd)
            crowd.sockets[0].send_json({"action": "pace", "pace_ms": 0})  # as the page's pace slider
            await asyncio.sleep(0.5)
            rss_after = sum(_rss_kib(p) for p in pids)
            for _ in range(pods):
                await self._one_pod(base, cluster, crowd, poster, tally)
        finally:
            poster.close()
            if crowd.sockets and not crowd.sockets[0].closed:
                crowd.sockets[0].send_json({"action": "pace", "pace_ms": pace})
                await asyncio.sleep(0.3)
            crowd.close()
        return {
            "clients": count,
            "pods": pods,
            "p50_ms": _quantile(tally.latencies, 0.5),
            "p99_ms": _quantile(tally.latencies, 0.99),
            "max_ms": _quantile(tally.latencies, 1.0),
            "accept_p50_ms": _quantile(tally.accepts, 0.5),
            "accept_p99_ms": _quantile(tally.accepts, 0.99),
            "chain_p50_ms": _quantile(tally.chains, 0.5),
            "chain_p99_ms": _quantile(tally.chains, 0.99),
            "delivery_p50_ms": _quantile(tally.delays, 0.5),
            "delivery_p99_ms": _quantile(tally.delays, 0.99),
            "missed": len(tally.missed),
            "kib_per_client": (rss_after - rss_before) / count if pids else float("nan"),
        }

    async def _wait_for_snapshots(self, crowd: Crowd) -> None:
        deadline = time.monotonic() + 120
        for sock in crowd.sockets:
            first = await sock.next_message(max(1.0, deadline - time.monotonic()))
            if first.get("type") not in ("snapshot", "resync"):
                raise CommandError(f"expected a snapshot first, got {first.get('type')}")

    async def _one_pod(self, base: str, cluster: str, crowd: Crowd, poster: KeepAlive, tally: Tally) -> None:
        """Create a bare pod; wait until its trace is complete everywhere (or 30 s)."""
        name = f"fanout-{secrets.token_hex(3)}"
        marks = [len(sock.frames) for sock in crowd.sockets]
        body = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
        }
        path = urlsplit(f"{base}/clusters/{cluster}/api/v1/namespaces/default/pods").path
        status, started = await poster.request("POST", path, body)
        if status != 201:
            raise CommandError(f"creating pod {name} answered {status}")
        trace = await self._settled_trace(base, cluster, name, crowd.sockets[0])
        expected = {step["seq"] for step in trace["steps"]}
        recorded = {step["seq"]: _perf_time(step["ts"]) for step in trace["steps"]}
        tally.accepts.append(min(recorded.values()) - started)
        tally.chains.append(max(recorded.values()) - min(recorded.values()))
        for index, sock in enumerate(crowd.sockets):
            got = sock.messages(marks[index])
            ours = [m for m in got if m.data.get("trace") == trace["id"]]
            seen = {m.data["seq"]: m.at for m in ours}
            # A client that got a step twice, or a resync, did not get the plain stream either.
            if (
                set(seen) != expected
                or len(ours) != len(seen)
                or any(m.data.get("type") == "resync" for m in got)
            ):
                tally.missed.add(index)
            if seen:
                tally.latencies.append(max(seen.values()) - started)
            tally.delays += [at - recorded[seq] for seq, at in seen.items() if seq in recorded]
        await asyncio.to_thread(
            _request, f"{base}/clusters/{cluster}/api/v1/namespaces/default/pods/{name}", "DELETE"
        )
        await asyncio.sleep(0.5)  # let the delete's messages pass before the next pod

    async def _settled_trace(self, base: str, cluster: str, name: str, watcher) -> dict:
        """The pod's trace once one socket saw its step 13 and every socket had time to follow."""
        deadline = time.monotonic() + 30
        seen = 0
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            for message in watcher.messages(seen):
                data = message.data
                if data.get("type") == "flow.step" and data["step"] == 13 and data["object"]["name"] == name:
                    await asyncio.sleep(1.0)  # the fan-out of the last steps to everyone else
                    return await asyncio.to_thread(
                        _request, f"{base}/clusters/{cluster}/traces/{data['trace']}"
                    )
            seen = len(watcher.frames)
        raise CommandError(f"pod {name}'s trace did not complete in 30 s")

"""Measure the dashboard in a real browser on a 100-node / 1,000-pod cluster.

It starts `manage.py serve` on a throwaway SQLite database (pace 0), builds the cluster through
the API (N nodes, an RC of P replicas, all Running), then drives Debian's Chromium with
Playwright and prints:

- first contentful paint and the time until every node card is drawn (the page's own
  `kubesim-cluster-painted` mark), over several fresh loads: median, min and max;
- the snapshot's size: bytes sent (gzipped, as the page gets it) and bytes of JSON;
- the gaps between animation frames while a second RC of --burst replicas is created and runs
  (p50, p99, max): how smooth the page stays while a thousand pods arrive.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import time
import urllib.error
import urllib.request

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bench.server import ThrowawayServer, cpu_seconds, nginx_rc
from bench.stats import percentile
from cluster.auth.access import presenter_token

CHROMIUM = settings.KUBESIM_CHROMIUM
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
CLUSTER = "bench"
FRAME_MS = 1000 / 60

# Frame timestamps gathered by the page from now on (requestAnimationFrame callbacks).
FRAME_PROBE = """() => {
  window.__frames = [];
  const tick = (t) => { window.__frames.push(t); if (!window.__stopFrames) requestAnimationFrame(tick); };
  window.__stopFrames = false;
  requestAnimationFrame(tick);
}"""

LOAD_FIGURES = r"""() => {
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  const painted = performance.getEntriesByName("kubesim-cluster-painted")[0];
  const snap = performance.getEntriesByType("resource").find((e) => /\/snapshot(\?view=page)?$/.test(e.name));
  return {fcp: fcp ? fcp.startTime : null, painted: painted ? painted.startTime : null,
          snapshot: snap ? snap.responseEnd : null, cards: document.querySelectorAll(".node-card").length};
}"""


class Server(ThrowawayServer):
    """`manage.py serve` on a throwaway SQLite database holding one generated cluster, with the
    page's static files collected as `make run` does."""

    def __init__(self, nodes: int) -> None:
        create = (
            f"from cluster.controlplane.demo import create_many; create_many({CLUSTER!r}, {nodes}, pace_ms=0)"
        )
        super().__init__(
            "kubesim-bench-page-", static=True, setup=create, ready=f"/clusters/{CLUSTER}/snapshot"
        )

    def get(self, path: str, gzip: bool = False) -> bytes:
        """The response's body as sent (with `gzip`, compressed if the server chose to)."""
        request = urllib.request.Request(f"{self.url}{path}")
        if gzip:
            request.add_header("Accept-Encoding", "gzip")
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read()

    # Every write the benchmark makes goes through here (one place to add credentials).
    def create(self, path: str, body: dict) -> None:
        request = urllib.request.Request(f"{self.url}{path}", data=json.dumps(body).encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        request.add_header("User-Agent", "kubesim-bench-page")
        request.add_header("Authorization", f"Bearer {presenter_token()}")
        with urllib.request.urlopen(request, timeout=60):
            pass

    def create_rc(self, name: str, replicas: int) -> None:
        path = f"/clusters/{CLUSTER}/api/v1/namespaces/default/replicationcontrollers"
        self.create(path, nginx_rc(name, replicas))

    def running(self, app: str) -> int:
        """The RC's ready replicas (its status, as `kubectl get rc` shows them): reading the RC
        instead of listing a thousand pods twice a second keeps the benchmark's own load off the
        server and the browser it measures."""
        path = f"/clusters/{CLUSTER}/api/v1/namespaces/default/replicationcontrollers/{app}"
        return int((json.loads(self.get(path)).get("status") or {}).get("readyReplicas") or 0)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def wait_quiet(self, timeout: float = 300.0, window: float = 1.0, busy: float = 0.05) -> float:
        """Wait until the server is idle (under `busy` of a core over `window` seconds): after a
        burst it still writes events and scheduling explanations in the lulls, and a page load
        timed meanwhile would measure that work too. Returns the seconds waited."""
        started = time.monotonic()
        before = self.cpu_seconds()
        while time.monotonic() - started < timeout:
            time.sleep(window)
            now = self.cpu_seconds()
            if now - before < busy * window:
                return time.monotonic() - started
            before = now
        raise CommandError(f"the server was still busy after {timeout:.0f}s")

    def wait_running(self, app: str, count: int, timeout: float) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.running(app) >= count:
                return time.monotonic() - started
            time.sleep(0.5)
        raise CommandError(f"{count} pods of app={app} were not Running within {timeout:.0f}s")


class Command(BaseCommand):
    help = "Measure first paint, node cards drawn, snapshot bytes and frame gaps on a big cluster."

    def add_arguments(self, parser):
        parser.add_argument("--nodes", type=int, default=100)
        parser.add_argument("--pods", type=int, default=1000, help="replicas Running before the loads")
        parser.add_argument("--burst", type=int, default=1000, help="replicas of the RC timed")
        parser.add_argument("--loads", type=int, default=5, help="fresh page loads to time")
        parser.add_argument("--width", type=int, default=1600)
        parser.add_argument("--height", type=int, default=1000)
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        parser.add_argument(
            "--profile",
            type=int,
            default=0,
            metavar="N",
            help="also print the N functions of the page that took the most CPU during the burst",
        )

    def handle(self, *args, nodes, pods, burst, loads, width, height, **options):
        self.profile_top = options["profile"]
        if not CHROMIUM.exists():
            raise CommandError(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as error:
            raise CommandError("playwright is not installed (pip install -r requirements-dev.txt)") from error
        load_before = os.getloadavg()[0]
        with Server(nodes) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                result = self._measure(server, browser, nodes, pods, burst, loads, (width, height))
            finally:
                browser.close()
        result["load_average"] = [load_before, os.getloadavg()[0]]
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        load = result["load"]
        self.stdout.write(
            f"{nodes} nodes, {pods} pods, {loads} loads at {width}x{height}"
            f" (load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end):\n"
            f"  loads began once the server was idle, {result['quiet_s']:.1f} s after the pods ran\n"
            f"  first contentful paint  median {load['fcp_ms'][0]:.0f} ms"
            f" (min {load['fcp_ms'][1]:.0f}, max {load['fcp_ms'][2]:.0f})\n"
            f"  every node card drawn   median {load['cards_ms'][0]:.0f} ms"
            f" (min {load['cards_ms'][1]:.0f}, max {load['cards_ms'][2]:.0f})\n"
            f"  snapshot                {result['snapshot_sent_bytes']:,} bytes sent"
            f" ({result['snapshot_bytes']:,} bytes of JSON;"
            f" {result['full_snapshot_bytes']:,} with whole pods)"
            + (
                f", received over HTTP at median {load['snapshot_ms'][0]:.0f} ms\n"
                if load["snapshot_ms"]
                else " (sent on the websocket)\n"
            )
            + f"  {burst}-replica burst ({result['burst_s']:.1f} s to Running): frame gaps"
            f" p50 {result['frames']['p50_ms']:.1f} ms, p99 {result['frames']['p99_ms']:.1f} ms,"
            f" max {result['frames']['max_ms']:.0f} ms over {result['frames']['count']} frames"
            f" ({result['frames']['over_33_ms']} gaps over 2 frames,"
            f" {result['frames']['over_50_ms']} over 3)\n"
        )

    def _measure(self, server: Server, browser, nodes: int, pods: int, burst: int, loads: int, size) -> dict:
        if pods:
            server.create_rc("base", pods)
            server.wait_running("base", pods, timeout=900)
        # The loads time a page opened on a settled cluster: the burst's lull work done first.
        quiet_s = server.wait_quiet()
        # The page's snapshot (pods as it draws them), and the whole objects' for comparison.
        snapshot = server.get(f"/clusters/{CLUSTER}/snapshot?view=page")
        sent = server.get(f"/clusters/{CLUSTER}/snapshot?view=page", gzip=True)
        full = server.get(f"/clusters/{CLUSTER}/snapshot")
        fcps, cards, received = [], [], []
        for _ in range(loads):
            figures = self._load(browser, server, nodes, size)
            fcps.append(figures["fcp"])
            cards.append(figures["painted"])
            if figures["snapshot"] is not None:
                received.append(figures["snapshot"])
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = context.new_page()
        self._open(page, server, nodes)
        page.evaluate(FRAME_PROBE)
        profiler = None
        if self.profile_top:
            profiler = context.new_cdp_session(page)
            profiler.send("Profiler.enable")
            profiler.send("Profiler.start")
        started = time.monotonic()
        server.create_rc("burst", burst)
        server.wait_running("burst", burst, timeout=1800)
        burst_s = time.monotonic() - started
        page.wait_for_timeout(500)  # the last events reach the page
        frames = page.evaluate("() => { window.__stopFrames = true; return window.__frames; }")
        if profiler is not None:
            self._print_profile(profiler.send("Profiler.stop")["profile"])
        context.close()
        gaps = [b - a for a, b in itertools.pairwise(frames)]
        return {
            "nodes": nodes,
            "pods": pods,
            "load": {
                "fcp_ms": _summary(fcps),
                "cards_ms": _summary(cards),
                "snapshot_ms": _summary(received) if received else None,
            },
            "quiet_s": quiet_s,
            "snapshot_bytes": len(snapshot),
            "full_snapshot_bytes": len(full),
            # What a page downloads: the same snapshot gzipped (the websocket sends it so too).
            "snapshot_sent_bytes": len(sent),
            "burst_s": burst_s,
            "frames": {
                "count": len(gaps),
                "p50_ms": percentile(gaps, 0.5),
                "p99_ms": percentile(gaps, 0.99),
                "max_ms": max(gaps) if gaps else float("nan"),
                # Frames the page missed: a gap over two frames (60 Hz) and over three.
                "over_33_ms": sum(gap > FRAME_MS * 2 + 1 for gap in gaps),
                "over_50_ms": sum(gap > FRAME_MS * 3 + 1 for gap in gaps),
            },
        }

    def _load(self, browser, server: Server, nodes: int, size) -> dict:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = context.new_page()
        self._open(page, server, nodes)
        figures = page.evaluate(LOAD_FIGURES)
        context.close()
        if figures["cards"] < nodes or figures["painted"] is None:
            raise CommandError(f"the page drew {figures['cards']} of {nodes} node cards")
        return figures

    def _open(self, page, server: Server, nodes: int) -> None:
        page.goto(f"{server.url}/clusters/{CLUSTER}/")
        page.wait_for_function(
            "(n) => document.querySelectorAll('.node-card').length >= n"
            " && performance.getEntriesByName('kubesim-cluster-painted').length > 0",
            arg=nodes,
            timeout=60_000,
        )

    def _print_profile(self, profile: dict) -> None:
        """The page's functions by self time (a CDP CPU profile's samples), the costliest first."""
        nodes = {node["id"]: node for node in profile["nodes"]}
        spent: dict[str, float] = {}
        for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=False):
            frame = nodes[node_id]["callFrame"]
            name = frame["functionName"] or "(anonymous)"
            where = f"{name} {frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber'] + 1}"
            spent[where] = spent.get(where, 0.0) + delta / 1000
        total = sum(spent.values()) or 1.0
        self.stdout.write(f"page CPU profile during the burst ({total:.0f} ms sampled):")
        for where, ms in sorted(spent.items(), key=lambda item: -item[1])[: self.profile_top]:
            self.stdout.write(f"  {ms:8.0f} ms {100 * ms / total:5.1f}%  {where}")


def _summary(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)

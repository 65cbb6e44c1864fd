"""Run the hostile cases against a live server and print how it answered.

Without --url it starts `manage.py serve` on a throwaway SQLite database (pace 0) and measures
that process; with --url (and --pid, for open files and memory) it uses a running server. Prints
the answers per status code, the 500s (should be 0), the orphans left (should be 0), the server's
open files and RSS before and after.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from django.core.management.base import BaseCommand

from bench.hostile import cases
from bench.hostile.client import Client
from bench.management.commands.bench_fanout import _rss_kib
from bench.server import ThrowawayServer


def _open_files(pid: int | None) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd")) if pid else None
    except OSError:
        return None


class Command(BaseCommand):
    help = "Run hostile requests (runaway replicas, wrong types, deep nesting, handles) against a server."

    def add_arguments(self, parser):
        parser.add_argument("--url", help="a running server's base URL (default: start one)")
        parser.add_argument("--pid", type=int, help="the running server's pid (open files, RSS)")
        parser.add_argument("--cluster", default="demo")
        parser.add_argument("--every", type=int, default=10, help="wrong-type sample: every Nth body")
        parser.add_argument("--watches", type=int, default=500)
        parser.add_argument("--burst", type=int, default=500)

    def handle(self, *args, url, pid, cluster, every, watches, burst, **options):
        if url:
            self._run(Client(url, cluster), pid, every, watches, burst)
            return
        with ThrowawayServer("kubesim-abuse-") as server:
            self._run(Client(server.url, cluster), server.process.pid, every, watches, burst)

    def _run(self, client: Client, pid: int | None, every: int, watches: int, burst: int) -> None:
        def open_files() -> int | None:
            return _open_files(pid)

        def rss() -> int | None:
            return _rss_kib(pid) if pid and Path(f"/proc/{pid}").exists() else None

        files_before, rss_before = open_files(), rss()
        client.allow_pods(3000)  # the classroom quota (200 pods) would stop the runaways first
        outcomes = [
            cases.huge_replicas(client),
            cases.runaway(client, 1_000_000_000, "scale", 4.0),
            cases.runaway(client, 1_000, "delete", 1.0),
            cases.runaway(client, 1_000, "scale", 1.0),
            cases.pods_deleted_before_their_rc(client),
            cases.wrong_types(client, every),
            cases.deep_and_undecodable(client),
            cases.oversized_and_html(client),
            cases.concurrent_watches(client, watches, open_files),
            cases.burst(client, burst),
        ]
        orphans = cases.orphans(client)
        files_after, rss_after = open_files(), rss()
        total: Counter = Counter()
        for outcome in outcomes:
            total.update(outcome.codes)
            codes = ", ".join(f"{code}: {n}" for code, n in sorted(outcome.codes.items()))
            self.stdout.write(f"{outcome.name}\n  answers {codes}")
            if outcome.not_status:
                self.stdout.write(f"  errors that were not a Status: {outcome.not_status}")
            for note in outcome.notes:
                self.stdout.write(f"  {note}")
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(total.items()))
        self.stdout.write(f"\nanswers per status code: {codes}")
        self.stdout.write(f"500s: {total[500]}")
        self.stdout.write(f"errors that were not a Status: {sum(o.not_status for o in outcomes)}")
        self.stdout.write(f"orphans: {orphans}")
        self.stdout.write(f"open files before/after: {files_before} / {files_after}")
        rss = f"{rss_before / 1024:.0f} / {rss_after / 1024:.0f} MiB" if rss_before and rss_after else "n/a"
        self.stdout.write(f"server RSS before/after: {rss}")

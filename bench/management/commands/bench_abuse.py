"""Run the hostile cases against a live server and print how it answered.

Without --url it starts `manage.py serve` on a throwaway SQLite database (pace 0) and measures
that process; with --url (and --pid, for open files and memory; --sqlite, for the console files'
bytes) it uses a running server. Prints the inputs tried, the answers per status code, the 500s
(should be 0), the hangs (no answer within the client's timeout: should be 0), the orphans left
(should be 0), the server's open files and RSS before and after, and the disk the console files
take. `--cases` picks groups: runaways, types (wrong types, nesting, sizes), handles (watches and
a burst), inputs (what once answered 500), bounds (console files, anonymous snapshots).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bench.hostile import bounds, cases, inputs
from bench.hostile.bodies import valid
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
        parser.add_argument("--browsers", type=int, default=70, help="new browsers saving a console file")
        parser.add_argument("--snapshots", type=int, default=100, help="anonymous snapshot reads at once")
        parser.add_argument("--sqlite", help="the running server's SQLite file (console files' bytes)")
        parser.add_argument(
            "--cases", default=",".join(GROUPS), help=f"groups to run, of {', '.join(GROUPS)}"
        )

    def handle(self, *args, url, pid, cluster, sqlite, cases, **options):
        groups = [group.strip() for group in cases.split(",") if group.strip()]
        unknown = set(groups) - set(GROUPS)
        if unknown:
            raise CommandError(f"unknown case groups: {', '.join(sorted(unknown))}")
        if url:
            self._run(Client(url, cluster), pid, sqlite, groups, options)
            return
        with ThrowawayServer("kubesim-abuse-") as server:
            database = server.env["KUBESIM_SQLITE_PATH"]
            self._run(Client(server.url, cluster), server.process.pid, database, groups, options)

    def _run(self, client: Client, pid: int | None, database: str | None, groups: list[str], options) -> None:
        def open_files() -> int | None:
            return _open_files(pid)

        def rss() -> int | None:
            return _rss_kib(pid) if pid and Path(f"/proc/{pid}").exists() else None

        files_before, rss_before = open_files(), rss()
        client.allow_pods(3000)  # the classroom quota (200 pods) would stop the runaways first
        outcomes = []
        if "runaways" in groups:
            outcomes += [
                cases.huge_replicas(client),
                cases.runaway(client, 1_000_000_000, "scale", 4.0),
                cases.runaway(client, 1_000, "delete", 1.0),
                cases.runaway(client, 1_000, "scale", 1.0),
                cases.pods_deleted_before_their_rc(client),
            ]
        if "types" in groups:
            outcomes += [
                cases.wrong_types(client, options["every"]),
                cases.deep_and_undecodable(client),
                cases.oversized_and_html(client),
            ]
        # Before the burst: its connections spend this address's anonymous reads for a minute.
        if "bounds" in groups:
            outcomes.append(bounds.console_files(client, options["browsers"], database))
            _fill(client, 300)  # a snapshot of ~2.7 MB, as a 1,000-pod cluster's
            outcomes.append(bounds.anonymous_snapshots(client, options["snapshots"], rss))
        if "handles" in groups:
            outcomes += [
                cases.concurrent_watches(client, options["watches"], open_files),
                cases.burst(client, options["burst"]),
            ]
        frames = None
        if "inputs" in groups:
            outcomes += [
                inputs.numbers(client),
                inputs.directives_and_nulls(client),
                inputs.protobuf(client),
                inputs.services_and_replicas(client),
                inputs.page_endpoints(client),
            ]
            frames = inputs.websocket_frames(client)
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
        if frames is not None:
            self.stdout.write(
                f"{frames.name}\n  answered with an error message: {frames.codes[1]}, not: {frames.codes[0]}"
            )
            for note in frames.notes:
                self.stdout.write(f"  {note}")
        hangs = total.pop(0, 0)
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(total.items()))
        self.stdout.write(
            f"\ninputs tried: {sum(total.values()) + hangs + (sum(frames.codes.values()) if frames else 0)}"
        )
        self.stdout.write(f"answers per status code: {codes}")
        self.stdout.write(f"500s: {total[500]}")
        self.stdout.write(f"hangs: {hangs + (frames.codes[0] if frames else 0)}")
        self.stdout.write(f"errors that were not a Status: {sum(o.not_status for o in outcomes)}")
        self.stdout.write(f"orphans: {orphans}")
        self.stdout.write(f"open files before/after: {files_before} / {files_after}")
        rss = f"{rss_before / 1024:.0f} / {rss_after / 1024:.0f} MiB" if rss_before and rss_after else "n/a"
        self.stdout.write(f"server RSS before/after: {rss}")
        used = bounds.console_bytes(database)
        self.stdout.write(
            f"disk used by console files: {used / 1024:.0f} KiB"
            if used is not None
            else "disk used by console files: n/a"
        )


GROUPS = ("runaways", "types", "handles", "inputs", "bounds")


def _fill(client: Client, pods: int) -> None:
    """Pods of ~9 kB each (an 8 kB annotation), so the snapshot weighs what a big class's does."""
    for i in range(pods):
        pod = valid("Pod", f"filler-{i}")
        pod["metadata"]["labels"] = {"app": "filler"}
        pod["metadata"]["annotations"] = {"note": "x" * 8_000}
        client.create(pod)

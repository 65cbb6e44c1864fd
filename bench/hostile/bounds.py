"""What one visitor may take (`manage.py bench_abuse`): console files saved by one browser and by
many, and a hundred anonymous snapshot reads at once against the server's memory."""

from __future__ import annotations

import http.client
import re
import sqlite3
import threading
import time
from collections.abc import Callable

from bench.hostile.browser import Browser
from bench.hostile.cases import Outcome
from bench.hostile.client import Client

FILE_TEXT = "# filler\n" * 26_000  # ~250 KiB, just under the 256 KiB a file may hold


def console_files(client: Client, browsers: int, database: str | None) -> Outcome:
    """One browser saves files until refused, then `browsers` new cookies save one each."""
    out = Outcome(
        f"console files: one browser saves 60 files of 250 KiB, then {browsers} new browsers one each"
    )
    first = Browser(client.host, client.port, client.cluster)
    first.open_page()
    refusals: dict[str, int] = {}
    for i in range(60):
        answer = first.save_file(f"f{i}.yaml", FILE_TEXT)
        out.codes[answer.status] += 1
        if answer.status >= 400:
            message = _general(str(answer.json().get("error", "")))  # type: ignore[union-attr]
            refusals[message] = refusals.get(message, 0) + 1
    for _ in range(browsers):
        visitor = Browser(client.host, client.port, client.cluster)
        visitor.open_page()
        answer = visitor.save_file("mine.yaml", FILE_TEXT)
        out.codes[answer.status] += 1
        if answer.status >= 400:
            message = _general(str(answer.json().get("error", "")))  # type: ignore[union-attr]
            refusals[message] = refusals.get(message, 0) + 1
    out.notes += [f"{n} × {message}" for message, n in refusals.items()]
    used = console_bytes(database)
    out.notes.append(
        f"disk used by console files: {used / 1024:.0f} KiB" if used is not None else "disk used: n/a"
    )
    return out


def _general(message: str) -> str:
    """A refusal without its file name and wait, so alike ones count together."""
    return re.sub(r"\d+ s$", "N s", re.sub(r'"[^"]*"', '"…"', message))


def console_bytes(database: str | None) -> int | None:
    """Bytes of every stored console file, read from the server's SQLite database."""
    if not database:
        return None
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT COALESCE(SUM(size), 0) FROM dashboard_consolefile").fetchone()[0]


def _revision(client: Client) -> int:
    answer = client.request("GET", client.path("Node", None))
    return int(answer.json()["metadata"]["resourceVersion"]) if answer.status == 200 else -1  # type: ignore[index]


def _settle(client: Client, quiet: float = 3.0, most: float = 90.0) -> None:
    """Wait until the cluster's revision holds still for `quiet` seconds (the control plane done)."""
    deadline, last, since = time.monotonic() + most, _revision(client), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet:
        time.sleep(0.5)
        now = _revision(client)
        if now != last:
            last, since = now, time.monotonic()


def anonymous_snapshots(client: Client, count: int, rss: Callable[[], int | None]) -> Outcome:
    """`count` anonymous snapshot reads at once, twice; the server's RSS before and after each."""
    out = Outcome(f"{count} anonymous snapshot reads at once, two rounds")
    _settle(client)  # one revision for all the reads: the cache's case (a build per revision)
    visitor = Client(f"http://{client.host}:{client.port}", client.cluster, token="")
    size = len(visitor.request("GET", f"/clusters/{client.cluster}/snapshot").body)
    lock = threading.Lock()

    def read() -> None:  # as a browser asks: gzip accepted
        connection = http.client.HTTPConnection(client.host, client.port, timeout=120)
        try:
            connection.request(
                "GET", f"/clusters/{client.cluster}/snapshot", headers={"Accept-Encoding": "gzip"}
            )
            response = connection.getresponse()
            response.read()
            status = response.status
        except TimeoutError:
            status = 0  # a hang
        finally:
            connection.close()
        with lock:
            out.codes[status] += 1

    # Round 1 also fills the server's pools (32 request threads, a database connection each), as
    # the watches case's first round does; round 2 is the steady state.
    for round_ in (1, 2):
        before = rss()
        threads = [threading.Thread(target=read) for _ in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        after = rss()
        grown = f"{(after - before) / 1024:+.0f} MiB" if before and after else "n/a"
        out.notes.append(f"round {round_}: server RSS {grown} across {count} reads")
    out.notes.append(f"snapshot of {size / 1e6:.2f} MB (gzip accepted, as browsers ask)")
    return out

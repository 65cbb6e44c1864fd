"""Commands that wait, as kubectl's do: `rollout status` watches its object, `drain` waits for
the pods it evicted to go. They read the cluster's event log (list, then watch from that
revision, as kubectl's informer does) while a control plane runs the cluster, and the console
waits WAIT_SECONDS at most, unless the command's own --timeout is shorter: a request holds one of
the server's threads meanwhile, so at most WAITING_SLOTS commands of a process wait at once (forty
students following a stuck rollout must not take every request thread); another one answers at
once, and says why."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from cluster.apiserver import service as api
from cluster.models import Cluster
from dashboard.console.deletion_wait import control_plane_alive
from dashboard.console.parser import UsageError

WAIT_SECONDS = 120
POLL_SECONDS = 0.1
WAITING_SLOTS = 8  # a quarter of the request threads (kubesim/handler.py MAX_REQUEST_THREADS)
BUSY = "the web console is already waiting for other commands"
BUSY_NOTE = f"({BUSY}: this one did not wait; run it again)\n"
_slots = threading.BoundedSemaphore(WAITING_SLOTS)
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|ns|m|s)")


def parse_duration(text: str, flag: str) -> float:
    """Go's time.ParseDuration, as kubectl reads --timeout: "90s", "2m", "1m30s", "0"."""
    if text in ("0", ""):
        return 0.0
    parts = _PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise UsageError(
            f'error: invalid argument "{text}" for "--{flag}" flag: time: invalid duration "{text}"'
        )
    return sum(float(number) * _UNITS[unit] for number, unit in parts)


def go_duration(seconds: float) -> str:
    """A duration as Go prints it: 30s, 2m0s, 1h0m0s."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


class Deadline:
    """When the wait ends: the command's --timeout (0: none, as kubectl's default), and at the
    latest the console's own WAIT_SECONDS (`capped` says which ended it)."""

    def __init__(self, timeout: float) -> None:
        self.capped = not timeout or timeout > WAIT_SECONDS
        self.seconds = WAIT_SECONDS if self.capped else timeout
        self.at = time.monotonic() + self.seconds

    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def note(self) -> str:
        """What the console says when its own limit, not the command's, ended the wait."""
        if not self.capped:
            return ""
        limit = go_duration(WAIT_SECONDS)
        return f"(the web console waits {limit} at most: run the command again to go on waiting)\n"


def may_wait(cluster: Cluster) -> bool:
    """Only a cluster a control plane runs changes while the console waits."""
    return control_plane_alive(cluster)


@contextmanager
def waiting_slot() -> Iterator[bool]:
    """One of the WAITING_SLOTS, if one is free: whether this command may wait."""
    got = _slots.acquire(blocking=False)
    try:
        yield got
    finally:
        if got:
            _slots.release()


def changes(
    cluster: Cluster, kind: str, namespace: str, name: str, revision: int, deadline: Deadline
) -> Iterator[api.LogEntry]:
    """The object's log entries after `revision`, as they are written, until the deadline."""
    while not deadline.passed():
        entries = api.events_since(cluster, revision)
        for entry in entries:
            revision = entry.revision
            if (entry.kind, entry.namespace, entry.name) == (kind, namespace, name):
                yield entry
        if not entries:
            time.sleep(POLL_SECONDS)

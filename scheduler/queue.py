"""The scheduling queue: pods waiting for a node, by priority then first in first out.

Like kube-scheduler's: an active queue; unschedulable pods wait until a cluster change that could
help them (a node added, labelled, uncordoned or untainted; a pod deleted), after a per-pod backoff
of 1 s doubling to 10 s; and every pod left unschedulable for 5 minutes is retried anyway.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
MAX_UNSCHEDULABLE_SECONDS = 300.0


@dataclass(slots=True)
class QueuedPod:
    pod: dict
    trace_id: str | None
    attempts: int = 0
    last_message: str = ""
    backoff_until: float = 0.0
    unschedulable_since: float = 0.0
    moved: bool = False  # a change that could help arrived while it waited

    @property
    def key(self) -> tuple[str, str]:
        meta = self.pod["metadata"]
        return meta.get("namespace", ""), meta["name"]

    @property
    def priority(self) -> int:
        return int((self.pod.get("spec") or {}).get("priority") or 0)


@dataclass
class SchedulingQueue:
    active: list[tuple[int, int, tuple[str, str]]] = field(default_factory=list)
    entries: dict[tuple[str, str], QueuedPod] = field(default_factory=dict)
    unschedulable: set[tuple[str, str]] = field(default_factory=set)
    _order: itertools.count = field(default_factory=itertools.count)

    def add(self, pod: dict, trace_id: str | None) -> None:
        """A new pending pod, or a newer copy of one already queued (kept in its place)."""
        key = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])
        entry = self.entries.get(key)
        if entry is not None:
            entry.pod = pod
            entry.trace_id = trace_id or entry.trace_id
            return
        entry = QueuedPod(pod, trace_id)
        self.entries[key] = entry
        self._push(entry)

    def _push(self, entry: QueuedPod) -> None:
        heapq.heappush(self.active, (-entry.priority, next(self._order), entry.key))

    def remove(self, key: tuple[str, str]) -> None:
        self.entries.pop(key, None)
        self.unschedulable.discard(key)

    def pop(self) -> QueuedPod | None:
        while self.active:
            _, _, key = heapq.heappop(self.active)
            entry = self.entries.get(key)
            if entry is not None and key not in self.unschedulable:
                return entry
        return None

    def done(self, entry: QueuedPod) -> None:
        self.entries.pop(entry.key, None)

    def park(self, entry: QueuedPod, message: str) -> None:
        """The cycle found no node: wait for a change that could help, with backoff."""
        entry.attempts += 1
        entry.last_message = message
        now = time.monotonic()
        entry.backoff_until = now + min(INITIAL_BACKOFF * 2 ** (entry.attempts - 1), MAX_BACKOFF)
        entry.unschedulable_since = now
        entry.moved = False
        self.unschedulable.add(entry.key)

    def move_all(self) -> None:
        """MoveAllToActiveOrBackoffQueue: something changed that could make them schedulable."""
        for key in self.unschedulable:
            self.entries[key].moved = True

    def flush(self, now: float | None = None) -> None:
        """Moved pods whose backoff expired, and pods unschedulable too long, go back to active."""
        now = time.monotonic() if now is None else now
        ready = []
        for key in self.unschedulable:
            entry = self.entries[key]
            expired = entry.moved and entry.backoff_until <= now
            if expired or now - entry.unschedulable_since >= MAX_UNSCHEDULABLE_SECONDS:
                ready.append(key)
        for key in ready:
            self.unschedulable.discard(key)
            self._push(self.entries[key])

    def next_wakeup(self, now: float | None = None) -> float | None:
        """Seconds until a moved pod's backoff expires (None when nothing is waiting on a timer)."""
        now = time.monotonic() if now is None else now
        times = [self.entries[k].backoff_until for k in self.unschedulable if self.entries[k].moved]
        return max(0.0, min(times) - now) if times else None

    def pending(self) -> bool:
        return any(key not in self.unschedulable for key in self.entries)

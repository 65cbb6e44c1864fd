"""The scheduling queue, as kube-scheduler v1.33's PriorityQueue.

- activeQ: pods ready to be tried, highest spec.priority first, then the one queued first
  (PrioritySort).
- backoffQ: pods waiting out their backoff: 1 s after the first failed attempt, doubling with
  each attempt up to 10 s. With the SchedulerPopFromBackoffQ gate (beta, on in v1.33) a pod
  is taken from backoffQ when activeQ is empty, backoff or not.
- unschedulablePods: pods no node could take. Each remembers the plugins that rejected it and
  waits for a cluster event one of them registered whose queueing hint says it may help
  (scheduler.engine.queueing_hints); then it moves to backoffQ (still backing off) or activeQ.
  A pod left there for 5 minutes is moved anyway (flushUnschedulablePodsLeftover).
A pod whose cycle failed with no rejecting plugin (an error) goes straight to backoffQ.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field

from k8s import clock
from k8s.pods import scheduling_gates
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.queueing_hints import ClusterEvent, pod_events, retry_when, wake

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
MAX_UNSCHEDULABLE_SECONDS = 300.0
ACTIVE, BACKOFF, UNSCHEDULABLE = "activeQ", "backoffQ", "unschedulablePods"


def backoff_duration(attempts: int, initial: float = INITIAL_BACKOFF, maximum: float = MAX_BACKOFF) -> float:
    """calculateBackoffDuration: the initial backoff doubled for each attempt after the first, at
    most `maximum` (podInitialBackoffSeconds and podMaxBackoffSeconds of the configuration)."""
    duration = initial
    for _ in range(1, attempts):
        if duration > maximum - duration:
            return maximum
        duration += duration
    return duration


@dataclass(slots=True)
class QueuedPod:
    pod: dict
    trace_id: str | None
    attempts: int = 0
    last_message: str = ""
    queue: str = ACTIVE
    backoff_until: float = 0.0
    backoff_seconds: float = 0.0  # the backoff of its latest attempt
    unschedulable_since: float = 0.0
    rejectors: frozenset[str] = frozenset()
    woken_by: dict | None = None  # what moved it out of unschedulablePods last
    # SchedulingGates' PreEnqueue refused it: kept in unschedulablePods, never tried, until an
    # update removes its last gate.
    gated: bool = False
    _info: PodInfo | None = None
    _seq: int = 0  # the activeQ heap entry that is current

    @property
    def key(self) -> tuple[str, str]:
        meta = self.pod["metadata"]
        return meta.get("namespace", ""), meta["name"]

    @property
    def priority(self) -> int:
        return int((self.pod.get("spec") or {}).get("priority") or 0)

    @property
    def info(self) -> PodInfo:
        if self._info is None:
            self._info = PodInfo.of(self.pod)
        return self._info


@dataclass
class SchedulingQueue:
    active: list[tuple[int, int, tuple[str, str]]] = field(default_factory=list)
    entries: dict[tuple[str, str], QueuedPod] = field(default_factory=dict)
    unschedulable: set[tuple[str, str]] = field(default_factory=set)
    backoff: set[tuple[str, str]] = field(default_factory=set)
    _order: itertools.count = field(default_factory=itertools.count)
    # The configuration's podInitialBackoffSeconds and podMaxBackoffSeconds (1 and 10 by default).
    initial_backoff: float = INITIAL_BACKOFF
    max_backoff: float = MAX_BACKOFF

    def add(self, pod: dict, trace_id: str | None, now: float | None = None) -> None:
        """A new pending pod, or a newer copy of one already queued (kept in its place, unless the
        update is an event its rejecting plugins registered, e.g. new tolerations)."""
        key = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])
        entry = self.entries.get(key)
        if entry is None:
            entry = QueuedPod(pod, trace_id)
            self.entries[key] = entry
            self._enqueue(entry)
            return
        old, entry.pod, entry._info = entry.pod, pod, None
        entry.trace_id = trace_id or entry.trace_id
        if entry.gated:
            self._enqueue(entry)  # its last gate removed: PreEnqueue lets it in now
            return
        if entry.queue == UNSCHEDULABLE:
            for event in pod_events(old, pod):
                if self._consider(entry, event, now):
                    break

    def _enqueue(self, entry: QueuedPod) -> None:
        """kube-scheduler's PreEnqueue: a pod with scheduling gates waits, gated, and is not tried."""
        if scheduling_gates(entry.pod):
            entry.gated = True
            entry.queue = UNSCHEDULABLE  # not in self.unschedulable: no cluster event wakes it
        else:
            entry.gated = False
            self._push(entry)

    def _push(self, entry: QueuedPod) -> None:
        self.unschedulable.discard(entry.key)
        self.backoff.discard(entry.key)
        entry.queue = ACTIVE
        entry._seq = next(self._order)
        heapq.heappush(self.active, (-entry.priority, entry._seq, entry.key))

    def _to_backoff(self, entry: QueuedPod) -> None:
        self.unschedulable.discard(entry.key)
        entry.queue = BACKOFF
        self.backoff.add(entry.key)

    def remove(self, key: tuple[str, str]) -> None:
        self.entries.pop(key, None)
        self.unschedulable.discard(key)
        self.backoff.discard(key)

    def pop(self) -> QueuedPod | None:
        while self.active:
            _, seq, key = heapq.heappop(self.active)
            entry = self.entries.get(key)
            if entry is not None and entry.queue == ACTIVE and entry._seq == seq:
                entry.queue = ""  # in flight
                return entry
        # SchedulerPopFromBackoffQ: activeQ is empty, so a pod a cluster event moved on is tried
        # now; one that failed with an error waits its backoff out.
        early = [k for k in self.backoff if self.entries[k].rejectors]
        if early:
            key = min(early, key=lambda k: (self.entries[k].backoff_until, -self.entries[k].priority))
            self.backoff.discard(key)
            entry = self.entries[key]
            entry.queue = ""
            return entry
        return None

    def pop_trace(self, trace_id: str) -> list[QueuedPod]:
        """Every pod of `trace_id` waiting in activeQ, in the order pop would give them."""
        found, kept = [], []
        for item in sorted(self.active):
            entry = self.entries.get(item[2])
            if entry is not None and entry.queue == ACTIVE and entry._seq == item[1]:
                if entry.trace_id == trace_id:
                    entry.queue = ""  # in flight
                    found.append(entry)
                    continue
                kept.append(item)
        heapq.heapify(kept)
        self.active = kept
        return found

    def done(self, entry: QueuedPod) -> None:
        self.entries.pop(entry.key, None)

    def park(
        self,
        entry: QueuedPod,
        message: str,
        rejectors: frozenset[str] = frozenset(),
        now: float | None = None,
    ) -> None:
        """The cycle found no node: to unschedulablePods with its rejecting plugins (backoffQ when
        none rejected it, as after an error)."""
        now = clock.monotonic() if now is None else now
        entry.attempts += 1
        entry.last_message = message
        entry.backoff_seconds = backoff_duration(entry.attempts, self.initial_backoff, self.max_backoff)
        entry.backoff_until = now + entry.backoff_seconds
        entry.unschedulable_since = now
        entry.rejectors = rejectors
        entry.woken_by = None
        if self.entries.get(entry.key) is not entry:
            return  # deleted or replaced while in flight
        if rejectors:
            entry.queue = UNSCHEDULABLE
            self.unschedulable.add(entry.key)
        else:
            self._to_backoff(entry)

    def on_event(self, event: ClusterEvent, now: float | None = None) -> list[tuple[str, str]]:
        """Offer a cluster event to every unschedulable pod; the keys of those it moved."""
        moved = []
        for key in list(self.unschedulable):
            if self._consider(self.entries[key], event, now):
                moved.append(key)
        return moved

    def _consider(self, entry: QueuedPod, event: ClusterEvent, now: float | None) -> bool:
        found = wake(entry.rejectors, entry.info, event)
        if found is None:
            return False
        entry.woken_by = {"plugin": found.plugin, "event": event.label, "why": found.why.as_dict()}
        self._requeue(entry, now)
        return True

    def _requeue(self, entry: QueuedPod, now: float | None) -> None:
        now = clock.monotonic() if now is None else now
        if entry.backoff_until > now:
            self._to_backoff(entry)
        else:
            self._push(entry)

    def activate(self, key: tuple[str, str], why: dict, now: float | None = None) -> None:
        """Move one waiting pod on (its nomination was cleared, as upstream's Activate)."""
        entry = self.entries.get(key)
        if entry is not None and entry.queue == UNSCHEDULABLE:
            entry.woken_by = why
            self._requeue(entry, now)

    def flush(self, now: float | None = None) -> None:
        """backoffQ pods whose backoff expired go to activeQ; pods unschedulable for 5 minutes move on."""
        now = clock.monotonic() if now is None else now
        for key in [k for k in self.backoff if self.entries[k].backoff_until <= now]:
            self._push(self.entries[key])
        for key in list(self.unschedulable):
            entry = self.entries[key]
            if now - entry.unschedulable_since >= MAX_UNSCHEDULABLE_SECONDS:
                entry.woken_by = {"plugin": "", "event": "flush", "why": FLUSH_WHY}
                self._requeue(entry, now)

    def next_wakeup(self, now: float | None = None) -> float | None:
        """Seconds until a pod in backoffQ is due: now for one an event moved there (popped when
        activeQ is empty), else the first backoff end; None when none waits there. (The 5-minute
        flush needs no wake-up of its own: the scheduler's loop polls far more often.)"""
        now = clock.monotonic() if now is None else now
        if any(self.entries[k].rejectors for k in self.backoff):
            return 0.0
        times = [self.entries[k].backoff_until for k in self.backoff]
        return max(0.0, min(times) - now) if times else None

    def sizes(self) -> dict[str, int]:
        """Pods per queue, as kube-scheduler's scheduler_pending_pods labels them (in flight: none)."""
        counted = {ACTIVE: 0, BACKOFF: 0, UNSCHEDULABLE: 0, "gated": 0, "": 0}
        for entry in self.entries.values():
            counted["gated" if entry.gated else entry.queue] += 1
        return {
            "active": counted[ACTIVE],
            "backoff": counted[BACKOFF],
            "unschedulable": counted[UNSCHEDULABLE],
            "gated": counted["gated"],
        }

    def pending(self) -> bool:
        return any(entry.queue in (ACTIVE, BACKOFF) for entry in self.entries.values())

    def describe(self, key: tuple[str, str], now: float | None = None) -> dict | None:
        """The pod's place in the queue, for the page: queue, backoff, rejecting plugins, and the
        events that would retry it."""
        entry = self.entries.get(key)
        if entry is None:
            return None
        return describe_entry(entry, now)


FLUSH_WHY = {
    "en": "It had waited in unschedulablePods for 5 minutes, so it is retried anyway.",
    "zh": "它已在 unschedulablePods 中等待了 5 分钟，因此无论如何都会重试。",
}


def describe_entry(entry: QueuedPod, now: float | None = None) -> dict:
    now = clock.monotonic() if now is None else now
    left = max(0.0, entry.backoff_until - now)
    result = {
        "queue": entry.queue or "inFlight",
        "gated": entry.gated,
        "attempts": entry.attempts,
        "backoffSeconds": entry.backoff_seconds if entry.attempts else 0.0,
        "backoffLeftSeconds": round(left, 1),
        "rejectors": sorted(entry.rejectors),
        "retryWhen": retry_when(entry.rejectors),
        "retryText": retry_text(entry),
        "wokenBy": entry.woken_by,
    }
    if entry.queue == UNSCHEDULABLE and not entry.gated:
        result["flushInSeconds"] = round(
            max(0.0, entry.unschedulable_since + MAX_UNSCHEDULABLE_SECONDS - now)
        )
    return result


def retry_text(entry: QueuedPod) -> dict[str, str]:
    """ "Will be retried when …" in plain language."""
    if entry.gated:
        gates = ", ".join(scheduling_gates(entry.pod))
        return {
            "en": f"Waiting for scheduling gates: [{gates}]. The scheduler does not try it until an "
            "update removes every gate (spec.schedulingGates may only shrink).",
            "zh": f"等待调度门控（scheduling gates）：[{gates}]。在更新移除所有门控之前，调度器不会尝试调度它"
            "（spec.schedulingGates 只能删减）。",
        }
    if entry.queue == ACTIVE or entry.queue == "":
        return {
            "en": "In activeQ: it is tried next, by priority.",
            "zh": "在 activeQ 中：按优先级即将被调度。",
        }
    if entry.queue == BACKOFF:
        return {
            "en": "In backoffQ: retried when its backoff ends, or as soon as activeQ is empty.",
            "zh": "在 backoffQ 中：退避结束时重试，或在 activeQ 为空时立即重试。",
        }
    whens = retry_when(entry.rejectors)
    en = "; or ".join(w["why"]["en"] for w in whens)
    zh = "；或".join(w["why"]["zh"] for w in whens)
    return {
        "en": f"Will be retried when {en}; at the latest after 5 minutes in unschedulablePods.",
        "zh": f"将在以下情况重试：{zh}；最迟在 unschedulablePods 中等待 5 分钟后。",
    }

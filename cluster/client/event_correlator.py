"""client-go's EventCorrelator defaults (tools/record/events_cache.go), before an Event is sent.

- Spam filter: a source may send 25 Events about one object in a burst, then one every 5 minutes
  (a token bucket per source + object); the rest are dropped, as upstream drops them.
- Aggregation: once 10 Events about one object differ only by message (same source, type and
  reason) within 10 minutes, the next ones become one Event "(combined from similar events): …"
  whose count grows. An RC that creates 1,000 pods therefore writes about 25 SuccessfulCreate
  Events, not 1,000 — what `kubectl describe rc` shows on a real cluster.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from k8s import clock

LRU_ENTRIES = 4096
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL_SECONDS = 600.0
AGGREGATE_PREFIX = "(combined from similar events): "


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


@dataclass(slots=True)
class _Aggregate:
    messages: set[str] = field(default_factory=set)
    last: float = 0.0


class _Lru(OrderedDict):
    def remember(self, key, value) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > LRU_ENTRIES:
            self.popitem(last=False)


_lock = threading.Lock()
_buckets: _Lru = _Lru()
_aggregates: _Lru = _Lru()


def _object_key(cluster: str, event: dict) -> tuple:
    source, ref = event.get("source") or {}, event.get("involvedObject") or {}
    return (
        cluster,
        source.get("component", ""),
        source.get("host", ""),
        ref.get("kind", ""),
        ref.get("namespace", ""),
        ref.get("name", ""),
        ref.get("uid", ""),
        ref.get("apiVersion", ""),
    )


def spam_filtered(cluster: str, event: dict, now: float | None = None) -> bool:
    """EventSourceObjectSpamFilter: True when this Event must be dropped."""
    now = clock.monotonic() if now is None else now
    key = _object_key(cluster, event)
    with _lock:
        bucket = _buckets.get(key) or _Bucket(float(SPAM_BURST), now)
        bucket.tokens = min(float(SPAM_BURST), bucket.tokens + (now - bucket.at) * SPAM_QPS)
        bucket.at = now
        allowed = bucket.tokens >= 1.0
        if allowed:
            bucket.tokens -= 1.0
        _buckets.remember(key, bucket)
    return not allowed


def aggregate(cluster: str, event: dict, now: float | None = None) -> tuple | None:
    """EventAggregatorByReasonFunc: rewrites `event` into the combined Event once similar ones
    pile up, and returns the key the combined Event is counted under (None: a plain Event)."""
    now = clock.monotonic() if now is None else now
    key = (
        *_object_key(cluster, event),
        event.get("type", ""),
        event.get("reason", ""),
        event.get("reportingComponent", ""),
        event.get("reportingInstance", ""),
    )
    with _lock:
        record = _aggregates.get(key)
        if record is None or now - record.last > AGGREGATE_INTERVAL_SECONDS:
            record = _Aggregate()
        record.messages.add(event.get("message", ""))
        record.last = now
        _aggregates.remember(key, record)
        if len(record.messages) < AGGREGATE_MAX_EVENTS:
            return None
        record.messages.pop()  # the set never grows past the threshold
    event["message"] = AGGREGATE_PREFIX + event.get("message", "")
    return key

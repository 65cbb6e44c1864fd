"""Sliding-window request counts, in this process: how many writes a caller made lately.

kube-apiserver answers an overload with 429 TooManyRequests and a Retry-After header; so do we,
per cluster and caller, for every write (deletes and flow controls included).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

# Past this many keys, those with nothing left in their window are dropped (a caller may invent
# a new key with every request: an address, a user name).
SWEEP_OVER = 10_000


class RateLimiter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[object, deque[float]] = {}
        self._longest = 0.0  # the longest window asked about: older times count for no key
        self._swept_at = -math.inf

    def retry_after(self, key: object, limit: int, window: float, now: float | None = None) -> int:
        """0 and count this request when it is allowed; else the whole seconds until it would be."""
        now = time.monotonic() if now is None else now
        with self._lock:
            wait = self._wait(key, limit, window, now)
            if not wait:
                self._add(key, now)
            return wait

    def wait(self, key: object, limit: int, window: float, now: float | None = None) -> int:
        """The whole seconds until `key` may act again (0: now), counting nothing: with `hit`, for
        limits that count only some outcomes (failed logins)."""
        with self._lock:
            return self._wait(key, limit, window, time.monotonic() if now is None else now)

    def hit(self, key: object, now: float | None = None) -> None:
        """Count one act of `key` now."""
        with self._lock:
            self._add(key, time.monotonic() if now is None else now)

    def _wait(self, key: object, limit: int, window: float, now: float) -> int:
        self._longest = max(self._longest, window)
        times = self._times.get(key)
        if times is None:
            return 0
        while times and times[0] <= now - window:
            times.popleft()
        if len(times) >= limit:
            return max(1, math.ceil(times[0] + window - now))
        return 0

    def _add(self, key: object, now: float) -> None:
        if key not in self._times and len(self._times) >= SWEEP_OVER and now - self._swept_at >= 1:
            self._swept_at, horizon = now, now - self._longest
            for stale in [k for k, times in self._times.items() if not times or times[-1] <= horizon]:
                del self._times[stale]
        self._times.setdefault(key, deque()).append(now)

    def retry_after_all(
        self, limits: list[tuple[object, int]], window: float, now: float | None = None
    ) -> int:
        """`retry_after` for several (key, limit) pairs at once: the request counts under every key
        when all allow it, and under none when one refuses (then the longest wait)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            waits = []
            for key, limit in limits:
                times = self._times.setdefault(key, deque())
                while times and times[0] <= now - window:
                    times.popleft()
                if len(times) >= limit:
                    waits.append(max(1, math.ceil(times[0] + window - now)))
            if waits:
                return max(waits)
            for key, _ in limits:
                self._times[key].append(now)
            return 0

    def allow(self, key: object, limit: int, window: float, now: float | None = None) -> bool:
        return self.retry_after(key, limit, window, now) == 0

    def reset(self, key: object) -> None:
        """Forget every count whose key is `key` or a tuple starting with it."""
        with self._lock:
            for known in [k for k in self._times if k == key or (isinstance(k, tuple) and k[:1] == (key,))]:
                del self._times[known]


WRITES = RateLimiter()

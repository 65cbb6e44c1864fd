"""Sliding-window request counts, in this process: how many writes a caller made lately.

kube-apiserver answers an overload with 429 TooManyRequests and a Retry-After header; so do we,
per cluster and caller, for every write (deletes and flow controls included).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque


class RateLimiter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[object, deque[float]] = {}

    def retry_after(self, key: object, limit: int, window: float, now: float | None = None) -> int:
        """0 and count this request when it is allowed; else the whole seconds until it would be."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - window:
                times.popleft()
            if len(times) >= limit:
                return max(1, math.ceil(times[0] + window - now))
            times.append(now)
            return 0

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

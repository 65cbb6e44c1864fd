"""Who is acting on which cluster: the embedded control plane's rule for idle sandboxes.

A cluster is *touched* by every committed write in this process (except the control plane's own
heartbeats, Lease renewals), by every request that names it (`cluster.auth.access.get_cluster`) and by
every websocket or watch that opens on it; it is *watched* while a dashboard socket or an API
watch is open on it. A running control plane whose cluster nobody touched for QUIET_SECONDS, that
nobody watches and that has no pending work of its own pauses its node heartbeats (everything else
it does is woken by nudges only), and after `park_after()` seconds it is parked: its tasks stop,
and the next touch starts it again (its informers list the cluster afresh from the database, so
nothing is lost). cluster/controlplane/runtime.py decides; this module only keeps the times and the waker.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from django.conf import settings

# Heartbeats pause once nobody acted on the cluster for this long.
QUIET_SECONDS = 15.0

_lock = threading.Lock()
# Real time (time.monotonic), not the simulated clock (k8s.clock): activity paces this process
# (heartbeats, parking, the grader's waits), whatever time the cluster shows.
_touched: dict[str, float] = {}  # cluster -> time.monotonic() of the last touch
_watchers: dict[str, int] = {}
# Clusters whose control plane is paused or parked: a touch of one of them calls the waker.
_asleep: set[str] = set()
_waker: Callable[[str], None] | None = None
_announced = False


def park_after() -> float:
    """Seconds without a touch after which an idle cluster's control plane is parked."""
    return float(settings.KUBESIM_PARK_AFTER_SECONDS)


def set_waker(waker: Callable[[str], None] | None, announced: bool = True) -> None:
    """`waker(cluster_name)` is called (from any thread) when a sleeping cluster is touched.
    announced: every write reaches this process as a nudge (the embedded supervisor); the
    scale-out profile's control planes wake from nudges relayed through Redis, which may be lost."""
    global _waker, _announced
    _waker = waker
    _announced = waker is not None and announced


def announced() -> bool:
    """True when every write to the database reaches this process as a nudge: the embedded
    supervisor runs here (it also announces writes made by other processes), so nothing needs to
    poll for a lost nudge."""
    return _announced


def touch(cluster_name: str) -> None:
    """Someone acts on the cluster now (any thread). The waker hears of a sleeping cluster, and of
    one this process never heard of (a sandbox just created starts at once)."""
    with _lock:
        new = cluster_name not in _touched
        _touched[cluster_name] = time.monotonic()
        asleep = cluster_name in _asleep
    waker = _waker
    if (asleep or new) and waker is not None:
        waker(cluster_name)


def last_touch(cluster_name: str) -> float | None:
    return _touched.get(cluster_name)


_requested: dict[str, float] = {}


def requested(cluster_name: str) -> None:
    """A request (a student's kubectl, a page) names the cluster: a touch, noted apart from the
    control plane's own writes (the lab grader checks at once after a person acts)."""
    _requested[cluster_name] = time.monotonic()
    touch(cluster_name)


def requested_at(cluster_name: str) -> float:
    """When a person last acted on the cluster: a request began, or a write request ended (its
    writes committed: `acted`), whichever is later."""
    return max(_requested.get(cluster_name, 0.0), _acted.get(cluster_name, 0.0))


_acted: dict[str, float] = {}
_writing: dict[str, float] = {}
# The longest the lab grader waits for a write request under way to end (a slow or stuck request
# must not hold the checks back).
WRITE_WAIT_SECONDS = 2.0


def writing(cluster_name: str) -> None:
    """A write request on the cluster began (cluster.auth.access.get_cluster)."""
    _writing[cluster_name] = time.monotonic()


def acted(cluster_name: str) -> None:
    """A write request on the cluster has its response (cluster/controlplane/middleware.py): a
    check that began while it was under way saw the cluster without its writes, so the grader
    checks again."""
    _acted[cluster_name] = time.monotonic()


def write_under_way(cluster_name: str) -> float:
    """Seconds the lab grader still waits for the end of a write request under way on the cluster
    (0: none is): its first writes' nudges come before the rest are written, and a check then
    would only have to run again once the request ends."""
    began = _writing.get(cluster_name, 0.0)
    if began <= _acted.get(cluster_name, 0.0):
        return 0.0
    return max(0.0, began + WRITE_WAIT_SECONDS - time.monotonic())


def idle_for(cluster_name: str) -> float:
    """Seconds since the cluster was last touched (since it was first seen, when never)."""
    now = time.monotonic()
    with _lock:
        return now - _touched.setdefault(cluster_name, now)


def watched(cluster_name: str) -> bool:
    return _watchers.get(cluster_name, 0) > 0


def watch_started(cluster_name: str) -> None:
    """A dashboard socket or an API watch opened on the cluster."""
    with _lock:
        _watchers[cluster_name] = _watchers.get(cluster_name, 0) + 1
    touch(cluster_name)


def watch_ended(cluster_name: str) -> None:
    with _lock:
        left = _watchers.get(cluster_name, 1) - 1
        if left > 0:
            _watchers[cluster_name] = left
        else:
            _watchers.pop(cluster_name, None)
    touch(cluster_name)  # the time a watcher left counts as the last action


@contextlib.contextmanager
def watching(cluster_name: str) -> Iterator[None]:
    """A watcher for the duration of the block."""
    watch_started(cluster_name)
    try:
        yield
    finally:
        watch_ended(cluster_name)


def set_asleep(cluster_name: str, asleep: bool) -> None:
    with _lock:
        if asleep:
            _asleep.add(cluster_name)
        else:
            _asleep.discard(cluster_name)


def forget(cluster_name: str) -> None:
    with _lock:
        _touched.pop(cluster_name, None)
        _asleep.discard(cluster_name)

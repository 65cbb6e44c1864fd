"""One snapshot build per revision, shared by every reader (GET …/snapshot and the websocket).

A 1,000-pod cluster's snapshot is megabytes of JSON; built per request, a hundred readers at once
held a hundred copies (the server grew from 262 MB to 898 MB). Here the objects' part, which the
revision alone decides, is read once per (cluster, view, revision), and the whole body, and its
gzip, once per distinct state (traces, settings, exec sessions, queue, leader): readers at the same
state share the same bytes. Builders of one key take turns under its lock, so a crowd arriving at
a new revision waits for one build instead of starting a hundred.

The entry of a key is at most one revision's; at most MAX_KEYS keys are kept, the least recently
read dropped first. A snapshot's objects are at least as new as its revision (the builder read the
revision first), as `snapshot.build_text_at_position` promises.
"""

from __future__ import annotations

import gzip
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from cluster.flow import snapshot
from cluster.models import Cluster

MAX_KEYS = 32


@dataclass(eq=False)
class Snapshot:
    body: bytes  # JSON, UTF-8
    revision: int
    step_id: int
    _packed: bytes | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def gzipped(self) -> bytes:
        """The body gzipped, made once (zlib lets go of the GIL while it works)."""
        with self._lock:
            if self._packed is None:
                self._packed = gzip.compress(self.body, snapshot.GZIP_LEVEL)
            return self._packed


@dataclass(eq=False)
class _Entry:
    revision: int
    fragment: str  # snapshot.objects_fragment at that revision
    state: str = ""  # the state JSON the current body was built with
    built: Snapshot | None = None


_entries: OrderedDict[tuple, _Entry] = OrderedDict()
_locks: dict[tuple, threading.Lock] = {}
_guard = threading.Lock()
builds = {"objects": 0, "bodies": 0}  # counts, for the tests and the abuse benchmark


def _lock_of(key: tuple) -> threading.Lock:
    with _guard:
        return _locks.setdefault(key, threading.Lock())


def shared(cluster: Cluster, extra: dict | None = None, view: str = "full") -> Snapshot:
    """The cluster's snapshot now (with `extra` keys, e.g. the leader), built at most once per
    revision and state whoever asks."""
    fresh, step_id = snapshot.head(cluster)
    state = snapshot.to_json({**snapshot.state_of(cluster, fresh, step_id, view), **(extra or {})})
    # A cluster made anew under a reused id starts again at revision 0: its creation time tells.
    key = (fresh.pk, fresh.name, fresh.created_at.isoformat(), view)
    with _lock_of(key):
        with _guard:
            entry = _entries.get(key)
        if entry is None or entry.revision != fresh.revision:
            facts, objects = snapshot.read_objects(cluster, view)
            entry = _Entry(fresh.revision, snapshot.objects_fragment(facts, objects))
            builds["objects"] += 1
        if entry.built is None or entry.state != state:
            body = (state[:-1] + "," + entry.fragment + "}").encode()
            entry.state, entry.built = state, Snapshot(body, fresh.revision, step_id)
            builds["bodies"] += 1
        with _guard:
            _entries[key] = entry
            _entries.move_to_end(key)
            while len(_entries) > MAX_KEYS:
                dropped, _ = _entries.popitem(last=False)
                _locks.pop(dropped, None)
        return entry.built


def clear() -> None:
    with _guard:
        _entries.clear()
        _locks.clear()

"""Who is inside which pod: the exec sessions open now and the recent ones, per cluster.

Kept in this process's memory (sessions are connections to this process). Every change goes to
the dashboards connected here as `{"type": "exec.session", ...}`; the snapshot carries the list.
An exec is not a creation: it is shown beside the pod's 13 steps, never as one of them.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from datetime import UTC, datetime

RECENT = 50

_lock = threading.Lock()
_ids = itertools.count(1)
_open: dict[int, dict] = {}
_recent: dict[str, deque] = {}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def opened(
    cluster: str,
    namespace: str,
    pod: str,
    container: str,
    command: list[str],
    user: str,
    client: str,
    tty: bool,
) -> dict:
    session = {
        "id": next(_ids),
        "cluster": cluster,
        "namespace": namespace,
        "pod": pod,
        "container": container,
        "command": list(command),
        "user": user,
        "client": client,
        "tty": tty,
        "opened_at": _now(),
        "closed_at": None,
        "exit_code": None,
    }
    with _lock:
        _open[session["id"]] = session
    _announce(session)
    return session


def closed(session: dict, exit_code: int | None) -> None:
    with _lock:
        if _open.pop(session["id"], None) is None:
            return
        session.update(closed_at=_now(), exit_code=exit_code)
        _recent.setdefault(session["cluster"], deque(maxlen=RECENT)).append(session)
    _announce(session)


def open_count() -> int:
    with _lock:
        return len(_open)


def listing(cluster: str) -> list[dict]:
    """Open sessions and the recent closed ones, oldest first."""
    with _lock:
        recent = list(_recent.get(cluster, ()))
        now_open = [s for s in _open.values() if s["cluster"] == cluster]
    return [dict(s) for s in sorted(recent + now_open, key=lambda s: s["id"])]


def _announce(session: dict) -> None:
    """Hand the change to this process's hub for the cluster, on the event loop that runs it."""
    from cluster.hub import _hubs
    from cluster.sinks import Message

    hub = _hubs.get(session["cluster"])
    loop = getattr(hub, "loop", None) if hub is not None else None
    if hub is None or loop is None:
        return
    message = Message(json.dumps({"type": "exec.session", "session": dict(session)}))

    def offer() -> None:
        for client in list(hub.clients):
            client.offer(message)

    loop.call_soon_threadsafe(offer)

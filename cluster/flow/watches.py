"""Which list-watches are open in this process: step 1 of every trace names them.

Each component's informer registers here when it lists and moves its revision as it watches.
The registry is per process; a control plane running elsewhere is described from the event log.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(slots=True)
class OpenWatch:
    component: str  # "controller-manager" | "scheduler" | "kubelet"
    resources: str  # what it watches, as its request would say it
    port: str  # the course's port for the connection ("http 8080", "https 6443", "")
    revision: int  # the revision it has read up to
    node: str = ""


_lock = threading.Lock()
_open: dict[str, dict[tuple[str, str], OpenWatch]] = {}


def register(cluster_name: str, watch: OpenWatch) -> None:
    with _lock:
        _open.setdefault(cluster_name, {})[(watch.component, watch.node)] = watch


def advance(cluster_name: str, component: str, revision: int, node: str = "") -> None:
    with _lock:
        watch = _open.get(cluster_name, {}).get((component, node))
        if watch is not None and revision > watch.revision:
            watch.revision = revision


def unregister(cluster_name: str, component: str, node: str = "") -> None:
    with _lock:
        _open.get(cluster_name, {}).pop((component, node), None)


def open_watches(cluster_name: str) -> list[OpenWatch]:
    with _lock:
        watches = list(_open.get(cluster_name, {}).values())
    order = {"controller-manager": 0, "scheduler": 1, "kubelet": 2}
    return sorted(watches, key=lambda w: (order.get(w.component, 9), w.node))

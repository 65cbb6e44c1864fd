"""What the cluster's code needs of the scheduler app, which that app provides when Django starts
(scheduler/apps.py): the scheduler a control plane runs, the scheduling queue a page's snapshot
shows, what decided a pod's placement (the prediction round), and the pruning of old attempts.

The scheduler imports the cluster's API, as kube-scheduler is a client of kube-apiserver; the
cluster names no scheduler module but its pure engine, so the two packages depend one way
(tests/test_import_rules.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SchedulerApp:
    # The scheduler component of a cluster's control plane, made from the cluster's name.
    component: Callable[[str], object]
    # "namespace/name" → queue state, for the pods left unschedulable (a page's snapshot).
    pending: Callable[[object], dict]
    # The decision of the attempt that placed (namespace, pod) in a trace, or None while there is none.
    decision: Callable[[object, str, str, str], dict | None]
    # Old scheduling attempts of a cluster removed; how many.
    prune: Callable[[object], int]


_provided: list[SchedulerApp] = []


def provide(app: SchedulerApp) -> None:
    _provided[:] = [app]


def scheduler_app() -> SchedulerApp:
    if not _provided:
        raise RuntimeError("the scheduler app is not installed (INSTALLED_APPS)")
    return _provided[0]

"""Garbage-collector settings for KubeSim's long-running processes (serve, controlplane).

CPython's cyclic collector re-scans every tracked object at each full collection. In these
processes most objects are built at start-up and live until exit (Django, the URL
configuration, every imported module): about 80,000 objects, which take ~50 ms per full
collection on the classroom machine and are never garbage. Frozen, they are left out of every
later collection (gc.freeze, meant for exactly this).

The scheduler keeps each pod's full explanation, so every cycle leaves a few dozen new objects
behind; with CPython's default threshold (700 allocations) a young collection then runs every
few pods. A larger first threshold lets most short-lived objects die by reference counting before
any collection looks at them. Memory held by cyclic garbage grows by at most that many objects.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000  # CPython's default is 700


def tune_for_long_running() -> str:
    """Call once start-up is done, before serving: collect, freeze what exists, raise the first
    threshold. Returns settings() for the log."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    return settings()


def settings() -> str:
    """The collector's current settings in one line, e.g. for a benchmark's output."""
    young, middle, old = gc.get_threshold()
    frozen = gc.get_freeze_count()
    state = "on" if gc.isenabled() else "off"
    return f"gc {state}, thresholds {young}/{middle}/{old}, {frozen} start-up objects frozen"

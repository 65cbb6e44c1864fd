"""Each cluster's simulated time: the process clock (`k8s/clock.py`) plus the cluster's own
offset, which a teacher moves forward (a jump to the next CronJob schedule: a lesson cannot wait
a minute per run).

The offset is stored on the Cluster row, so every process reads the same time for a cluster: the
request that names the cluster reads it with the row (`enter`), a control plane refreshes it at
each of its scans (`observe`) and holds one `clock.Shift` per cluster, changed in place, that its
tasks read time through. A jump changes the row, the shift of this process, and wakes the
control plane, whose timers (the CronJob's next run, a Deployment's progress deadline, a pod's
grace period) then find themselves due.
"""

from __future__ import annotations

from django.db.models import F

from cluster.broadcast import nudge
from cluster.models import Cluster
from k8s import clock

# The clock's time may only go forward, by at most a year at a time (a typo must not throw a
# classroom cluster decades ahead).
MAX_JUMP_SECONDS = 365 * 24 * 3600

_shifts: dict[str, clock.Shift] = {}


def shift_of(name: str) -> clock.Shift:
    """The shift this process reads `name`'s time with (one object per cluster, kept)."""
    found = _shifts.get(name)
    if found is None:
        found = _shifts[name] = clock.Shift()
    return found


def observe(name: str, offset: float) -> clock.Shift:
    """A fresh reading of the cluster's offset (from its row); a jump made by another process
    wakes this process's control plane of the cluster, whose timers may now be due."""
    shift = shift_of(name)
    offset = float(offset or 0.0)
    if offset != shift.seconds:
        shift.seconds = offset
        nudge.NUDGES.fire(name)
    return shift


def enter(cluster: Cluster) -> None:
    """The rest of this request reads the cluster's time."""
    clock.enter(observe(cluster.name, getattr(cluster, "clock_offset", 0.0)))


def jump(cluster: Cluster, seconds: float) -> float:
    """Move the cluster's clock `seconds` forward (database thread); returns the new offset."""
    if not 0 < seconds <= MAX_JUMP_SECONDS:
        raise ValueError(f"a jump moves the clock forward by 0 to {MAX_JUMP_SECONDS} seconds, not {seconds}")
    Cluster.objects.filter(pk=cluster.pk).update(clock_offset=F("clock_offset") + seconds)
    offset = Cluster.objects.filter(pk=cluster.pk).values_list("clock_offset", flat=True).first() or 0.0
    observe(cluster.name, offset)
    nudge.notify(cluster.name, None)  # news for the page and for other processes
    return offset


def forget(name: str) -> None:
    _shifts.pop(name, None)

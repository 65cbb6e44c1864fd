"""A pod's READY, STATUS and RESTARTS as kubectl's printer computes them (printPod, v1.33).

One function shared by `get pods` tables, `describe` and the dashboard, so that a pod reads
"ContainerCreating", "ErrImagePull", "ImagePullBackOff", "Terminating"... the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from cluster.kubeapi.humanize import parse_time


@dataclass(slots=True)
class PodSummary:
    ready: int
    total: int
    reason: str
    restarts: int
    last_restart: datetime | None


def _restartable(container: dict | None) -> bool:
    return bool(container) and container.get("restartPolicy") == "Always"


def _later(current: datetime | None, status: dict) -> datetime | None:
    finished = parse_time(((status.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
    if finished and (current is None or finished > current):
        return finished
    return current


def _terminated_reason(term: dict, prefix: str = "") -> str:
    if term.get("reason"):
        return prefix + term["reason"]
    if term.get("signal"):
        return f"{prefix}Signal:{term['signal']}"
    return f"{prefix}ExitCode:{term.get('exitCode', 0)}"


def _init_containers(pod: dict, summary: PodSummary) -> tuple[bool, int, datetime | None]:
    """Walk the init containers; returns (initializing, sidecar restarts, sidecar last restart)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    inits = {c.get("name"): c for c in spec.get("initContainers") or []}
    side_restarts, side_last = 0, None
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        summary.restarts += cs.get("restartCount", 0)
        summary.last_restart = _later(summary.last_restart, cs)
        sidecar = _restartable(inits.get(cs.get("name")))
        if sidecar:
            side_restarts += cs.get("restartCount", 0)
            side_last = _later(side_last, cs)
        state = cs.get("state") or {}
        term, waiting = state.get("terminated"), state.get("waiting")
        if term is not None and term.get("exitCode", 0) == 0:
            continue
        if sidecar and cs.get("started"):
            summary.ready += 1 if cs.get("ready") else 0
            continue
        if term is not None:
            summary.reason = _terminated_reason(term, "Init:")
        elif waiting and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            summary.reason = "Init:" + waiting["reason"]
        else:
            summary.reason = f"Init:{i}/{len(spec.get('initContainers') or [])}"
        return True, side_restarts, side_last
    return False, side_restarts, side_last


def _containers(pod: dict, summary: PodSummary) -> None:
    status = pod.get("status") or {}
    has_running = False
    for cs in reversed(status.get("containerStatuses") or []):
        summary.restarts += cs.get("restartCount", 0)
        summary.last_restart = _later(summary.last_restart, cs)
        state = cs.get("state") or {}
        waiting, term = state.get("waiting") or {}, state.get("terminated")
        if waiting.get("reason"):
            summary.reason = waiting["reason"]
        elif term is not None:
            summary.reason = _terminated_reason(term)
        elif cs.get("ready") and state.get("running") is not None:
            has_running = True
            summary.ready += 1
    if summary.reason == "Completed" and has_running:
        conditions = status.get("conditions") or []
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        summary.reason = "Running" if ready else "NotReady"


def pod_summary(pod: dict) -> PodSummary:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    phase = status.get("phase", "")
    reason = status.get("reason") or phase
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    total = len(spec.get("containers") or []) + sum(
        1 for c in spec.get("initContainers") or [] if _restartable(c)
    )
    summary = PodSummary(ready=0, total=total, reason=reason, restarts=0, last_restart=None)
    initializing, side_restarts, side_last = _init_containers(pod, summary)
    initialized = any(
        c.get("type") == "Initialized" and c.get("status") == "True" for c in status.get("conditions") or []
    )
    if not initializing or initialized:
        summary.restarts, summary.last_restart = side_restarts, side_last
        _containers(pod, summary)
    deleting = (pod.get("metadata") or {}).get("deletionTimestamp")
    if deleting and status.get("reason") == "NodeLost":
        summary.reason = "Unknown"
    elif deleting and phase not in ("Succeeded", "Failed"):
        summary.reason = "Terminating"
    return summary


def status_text(pod: dict) -> str:
    """kubectl's STATUS column for the pod (what `get pods` prints), for the dashboard's cards."""
    return pod_summary(pod).reason

"""What the kubelet knows of a started pod's containers, and the pod status it reports from it.

One `Record` per container (init containers first, in order): its state as the runtime reports
it (waiting, running, terminated), the last run's end, its restarts and its crash-loop back-off.
`pod_status` turns them into the status upstream's kubelet computes (`getPhase`, the
Initialized/Ready/ContainersReady conditions, containerStatuses and initContainerStatuses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.apiserver.defaults import now_rfc3339
from cluster.kubelet import runtime
from cluster.kubelet.processes import ContainerRun

BACKOFF_INITIAL = 10.0
BACKOFF_MAX = 300.0
# A container that ran this long since its last back-off starts again from the initial one.
BACKOFF_RESET_SECONDS = 600.0


@dataclass(eq=False, slots=True)
class Record:
    name: str
    image: str
    image_id: str
    init: bool = False
    sidecar: bool = False  # an init container with restartPolicy: Always
    ephemeral: bool = False  # added by `kubectl debug`: never restarted, no part of the phase
    state: dict = field(default_factory=lambda: {"waiting": {"reason": "PodInitializing"}})
    last_state: dict = field(default_factory=dict)
    restart_count: int = 0
    container_id: str = ""
    ready: bool = False
    started: bool = False
    run: ContainerRun | None = None
    restarting: bool = False  # it ended and the restartPolicy starts it again
    backoff: float | None = None  # the delay of the next back-off (None: the next restart is at once)
    backoff_at: float = 0.0  # when it was last set (clock.monotonic())
    # Its last run is one the kubelet found ended (a restarted node): it starts in its turn as a
    # new attempt, as a fresh container does.
    carried: bool = False

    @property
    def fresh(self) -> bool:
        """Never started in this sandbox yet (waiting for its turn)."""
        return self.run is None and (not self.last_state or self.carried) and "waiting" in self.state

    @property
    def running(self) -> bool:
        return "running" in self.state

    @property
    def terminated(self) -> dict | None:
        return self.state.get("terminated")

    @property
    def succeeded(self) -> bool:
        return (self.terminated or {}).get("exitCode") == 0

    @property
    def ended(self) -> bool:
        """Terminated for good (not waiting to be restarted)."""
        return bool(self.terminated) and not self.restarting

    def entry(self) -> dict:
        out = {
            "name": self.name,
            "state": self.state,
            "lastState": self.last_state,
            "ready": self.ready,
            "restartCount": self.restart_count,
            "image": self.image,
            "imageID": self.image_id if self.container_id else "",
        }
        if self.container_id:
            out["containerID"] = self.container_id
        out["started"] = self.started
        return out


def next_restart_delay(record: Record, now: float) -> float:
    """The kubelet's crash-loop back-off: the first restart at once, then 10 s doubling to
    5 minutes; reset when 10 minutes passed since the last one."""
    if record.backoff is None or now - record.backoff_at > BACKOFF_RESET_SECONDS:
        record.backoff, record.backoff_at = BACKOFF_INITIAL, now
        return 0.0
    delay = record.backoff
    record.backoff, record.backoff_at = min(record.backoff * 2, BACKOFF_MAX), now
    return delay


def terminated_state(run: ContainerRun, started_at: str) -> dict:
    code = run.exit_code if run.exit_code is not None else 137
    if run.cannot_run:
        reason = "ContainerCannotRun"
    elif run.oom_killed:
        reason = "OOMKilled"
    else:
        reason = "Completed" if code == 0 else "Error"
    state = {"exitCode": code, "reason": reason}
    if run.cannot_run:
        state["message"] = run.cannot_run
    state.update({"startedAt": started_at, "finishedAt": now_rfc3339(), "containerID": run.container_id})
    return state


def _condition(type_: str, ok: bool, reason: str = "", message: str = "") -> dict:
    if ok:
        return runtime._condition(type_, "True")
    return runtime._condition(type_, "False", reason, message)


def phase(records: list[Record], policy: str) -> str:
    """upstream's getPhase for a pod whose containers the kubelet has started."""
    inits = [r for r in records if r.init and not r.sidecar]
    apps = [r for r in records if not r.init and not r.ephemeral]
    for record in inits:
        if record.succeeded:
            continue
        if record.ended and policy == "Never":
            return "Failed"
        return "Pending"
    if any(r.running for r in apps):
        return "Running"
    if all(r.ended for r in apps):
        return "Succeeded" if all(r.succeeded for r in apps) else "Failed"
    if any(r.restarting or r.last_state.get("terminated") for r in apps):
        return "Running"  # restarting: a crash loop is Running
    return "Pending"


def pod_status(pod: dict, records: list[Record], host_ip: str, pod_ip: str, start_time: str) -> dict:
    spec = pod.get("spec") or {}
    policy = spec.get("restartPolicy", "Always")
    current = phase(records, policy)
    incomplete = [r.name for r in records if r.init and not r.sidecar and not r.succeeded]
    unready = [r.name for r in records if (not r.init or r.sidecar) and not r.ephemeral and not r.ready]
    ready = not unready
    not_ready_message = f"containers with unready status: [{' '.join(unready)}]"
    if current == "Succeeded":
        ready_conditions = [
            runtime._condition(kind, "False", "PodCompleted") for kind in ("Ready", "ContainersReady")
        ]
    else:
        ready_conditions = [
            _condition(kind, ready, "ContainersNotReady", not_ready_message)
            for kind in ("Ready", "ContainersReady")
        ]
    status = {
        "phase": current,
        "conditions": [
            runtime._condition("PodReadyToStartContainers", "True"),
            _condition(
                "Initialized",
                not incomplete,
                "ContainersNotInitialized",
                f"containers with incomplete status: [{' '.join(incomplete)}]",
            ),
            *ready_conditions,
            runtime._scheduled(pod),
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": start_time,
    }
    inits = [r.entry() for r in records if r.init]
    if inits:
        status["initContainerStatuses"] = inits
    status["containerStatuses"] = [r.entry() for r in records if not r.init and not r.ephemeral]
    ephemeral = [r.entry() for r in records if r.ephemeral]
    if ephemeral:
        status["ephemeralContainerStatuses"] = ephemeral
    previous = pod.get("status") or {}
    if previous.get("qosClass"):
        status["qosClass"] = previous["qosClass"]
    _keep_transition_times(previous, status)
    return status


def _keep_transition_times(previous: dict, status: dict) -> None:
    """A condition whose status did not change keeps its lastTransitionTime."""
    before = {c.get("type"): c for c in previous.get("conditions") or []}
    for condition in status["conditions"]:
        old = before.get(condition["type"])
        if old and old.get("status") == condition["status"] and old.get("lastTransitionTime"):
            condition["lastTransitionTime"] = old["lastTransitionTime"]


def crash_loop_message(record: Record, pod: dict, delay: float) -> str:
    meta = pod["metadata"]
    reference = f"{meta['name']}_{meta.get('namespace', 'default')}({meta.get('uid', '')})"
    return f"back-off {int(delay)}s restarting failed container={record.name} pod={reference}"

"""The kubelet's prober (pkg/kubelet/prober): startup, readiness and liveness probes of each
running container, on the cluster's clock, and what their results change.

Each probe of a running container has a worker: its first run comes `initialDelaySeconds` after
the container started, then one every `periodSeconds`. A result counts once it repeats:
`successThreshold` successes in a row make it a success, `failureThreshold` failures a failure.
Every failed run is an `Unhealthy` event (`Readiness probe failed: …`).

- startupProbe: until it succeeds the container is not `started`, and the other probes wait;
  when it fails, the container is killed and restarted (`Container x failed startup probe, will
  be restarted`).
- readinessProbe: the container is ready only after a success (before the first run too); its
  readiness makes the pod's Ready and ContainersReady conditions, `READY 0/1` in kubectl, and
  whether the endpoints list the pod (the endpoints controller reads the Ready condition).
- livenessProbe: a failure kills the container (`Killing`: `Container x failed liveness probe,
  will be restarted`); it stops as the image's process stops on SIGTERM (or after the grace
  period when it ignores it) and starts again, its restartCount one higher.

What a probe run does is `probechecks.py`. Workers are keyed by container ID: a restarted
container gets fresh ones, as upstream's prober manager does.
"""

from __future__ import annotations

import asyncio
import copy
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.db import close_old_connections

from cluster.apiserver.defaults import now_rfc3339
from cluster.kubelet import images as catalog
from cluster.kubelet import probechecks, runtime
from cluster.shell import pods as shellpods
from k8s import clock

KINDS = ("startupProbe", "readinessProbe", "livenessProbe")
TITLES = {"startupProbe": "Startup", "readinessProbe": "Readiness", "livenessProbe": "Liveness"}
# Probe runs that touch the database or the shell go to these threads (shared by every cluster's
# kubelets), never the event loop's: a slow exec probe delays other probes, nothing else.
PROBE_THREADS = 2
_threads: ThreadPoolExecutor | None = None


def _probe_threads() -> ThreadPoolExecutor:
    global _threads
    if _threads is None:
        _threads = ThreadPoolExecutor(PROBE_THREADS, thread_name_prefix="kubesim-probe")
    return _threads


@dataclass(slots=True)
class Worker:
    """One probe of one container (by its ID)."""

    kind: str
    container: str
    container_id: str
    probe: dict
    due: float
    result: bool | None  # None: no result yet (readiness: not ready; startup: not started)
    streak: int = 0  # runs in a row with the same outcome
    last: bool | None = None
    busy: bool = False

    def count(self, ok: bool) -> bool:
        """Take a run's outcome; True when the result changed."""
        self.streak = self.streak + 1 if ok == self.last else 1
        self.last = ok
        needed = self.probe.get("successThreshold", 1) if ok else self.probe.get("failureThreshold", 3)
        if self.streak < needed or self.result == ok:
            return False
        self.result = ok
        return True


def _period(probe: dict) -> float:
    """periodSeconds, never under a second (validation refuses less; a stored zero is unset)."""
    period = probe.get("periodSeconds")
    return float(period) if isinstance(period, int) and period >= 1 else 10.0


def _running(pod: dict) -> dict[str, dict]:
    """name -> containerStatus of the pod's running containers."""
    return {
        s["name"]: s
        for s in (pod.get("status") or {}).get("containerStatuses") or []
        if (s.get("state") or {}).get("running") and s.get("containerID")
    }


class ProbeDuties:
    """The prober's part of KubeletManager (mixed in; uses its informer, events and writes)."""

    def _init_probes(self) -> None:
        self.probe_workers: dict[tuple[str, str], list[Worker]] = {}  # pod key -> its workers
        # (pod key, container) -> (when its killed process has stopped, its exit code)
        self.probe_kills: dict[tuple[tuple[str, str], str], tuple[float, int]] = {}

    # -- which probes run ----------------------------------------------------------------------
    def observe_probes(self, key: tuple[str, str], pod: dict | None) -> None:
        """A pod changed (or went: None): keep workers for its running containers' probes."""
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            self.probe_workers.pop(key, None)
            for kill in [k for k in self.probe_kills if k[0] == key]:
                del self.probe_kills[kill]
            return
        running = _running(pod)
        kept = [
            w
            for w in self.probe_workers.get(key, [])
            if running.get(w.container, {}).get("containerID") == w.container_id
        ]
        have = {(w.container, w.kind) for w in kept}
        now = clock.monotonic()
        for container in (pod.get("spec") or {}).get("containers") or []:
            status = running.get(container.get("name"))
            if status is None:
                continue
            for kind in KINDS:
                probe = container.get(kind)
                if isinstance(probe, dict) and (container["name"], kind) not in have:
                    start = None if kind == "readinessProbe" or kind == "startupProbe" else True
                    delay = probe.get("initialDelaySeconds") or 0
                    kept.append(
                        Worker(kind, container["name"], status["containerID"], probe, now + delay, start)
                    )
        if kept:
            self.probe_workers[key] = kept
        else:
            self.probe_workers.pop(key, None)

    def probe_wakeup(self) -> float | None:
        dues = [w.due for workers in self.probe_workers.values() for w in workers if not w.busy]
        dues += [due for due, _ in self.probe_kills.values()]
        return max(0.0, min(dues) - clock.monotonic()) if dues else None

    def _startup_done(self, workers: list[Worker], container: str) -> bool:
        return all(w.result for w in workers if w.container == container and w.kind == "startupProbe")

    def start_due_probes(self) -> None:
        now = clock.monotonic()
        for key, workers in list(self.probe_workers.items()):
            due = [
                w
                for w in workers
                if not w.busy
                and w.due <= now
                and (w.kind == "startupProbe" or self._startup_done(workers, w.container))
            ]
            for worker in due:
                worker.busy = True
                name = f"{key[0]}/{key[1]}/{worker.container}/{worker.kind}"
                self._probe_task(name, lambda k=key, w=worker: self._probe(k, w))
            for worker in workers:  # a probe waiting for the startup probe keeps its period
                if not worker.busy and worker.due <= now:
                    worker.due = now + _period(worker.probe)
        for kill_key, (due, code) in list(self.probe_kills.items()):
            if due <= now:
                del self.probe_kills[kill_key]
                name = f"{kill_key[0][0]}/{kill_key[0][1]}/{kill_key[1]}/restart"
                self._probe_task(name, lambda k=kill_key, c=code: self._restart_killed(*k, c))

    def _probe_task(self, name: str, work) -> None:
        """A probe run is a pod worker's work: the hub and run_until_idle wait for it as for one."""
        self.workers[("probe", name)] = asyncio.create_task(self._at_work(work))

    # -- one run -------------------------------------------------------------------------------
    async def _probe(self, key: tuple[str, str], worker: Worker) -> None:
        try:
            pod = self.informer.get("Pod", *key)
            if pod is None or worker not in self.probe_workers.get(key, []):
                return
            container = next(
                (c for c in pod["spec"].get("containers") or [] if c["name"] == worker.container), None
            )
            if container is None:
                return
            loop = asyncio.get_running_loop()
            outcome = await loop.run_in_executor(
                _probe_threads(), self._run_check, pod, container, worker.kind, worker.probe
            )
            if worker not in self.probe_workers.get(key, []):
                return  # the container restarted or the pod went meanwhile
            await self._take(key, pod, container, worker, outcome)
        finally:
            worker.busy = False
            worker.due = clock.monotonic() + _period(worker.probe)

    def _run_check(self, pod: dict, container: dict, kind: str, probe: dict) -> probechecks.Outcome:
        """In a probe thread (the shell and the container's files read the database)."""
        close_old_connections()
        try:
            timeout = int(probe.get("timeoutSeconds") or 1)
            if isinstance(probe.get("exec"), dict):
                ctx = shellpods.context_for(
                    self.cluster, pod, container["name"], tty=False, with_services=True
                )
                return probechecks.exec_command(ctx, probe["exec"], timeout)
            if isinstance(probe.get("httpGet"), dict):

                def context_for(p, name):
                    return shellpods.context_for(self.cluster, p, name, tty=False, with_services=False)

                return probechecks.http_get(self.cluster, pod, container, probe["httpGet"], context_for)
            if isinstance(probe.get("tcpSocket"), dict):
                return probechecks.tcp_socket(pod, container, probe["tcpSocket"])
            if isinstance(probe.get("grpc"), dict):
                return probechecks.grpc(pod, container, probe["grpc"], timeout)
            return probechecks.Outcome(True, "")
        finally:
            close_old_connections()

    async def _take(
        self, key, pod: dict, container: dict, worker: Worker, outcome: probechecks.Outcome
    ) -> None:
        node = pod["spec"]["nodeName"]
        changed = worker.count(outcome.ok)
        if not outcome.ok:
            message = f"{TITLES[worker.kind]} probe failed: {outcome.output}"
            await self.pod_writes.write(self._event, pod, node, "Unhealthy", message, container, "Warning")
        if not changed:
            return
        if worker.kind in ("livenessProbe", "startupProbe") and worker.result is False:
            await self._kill_for_probe(key, pod, container, worker)
            return
        # Readiness, or a startup probe that passed: the status the kubelet reports changes.
        live = self.informer.get("Pod", *key)
        if live is not None:
            status = copy.deepcopy(live.get("status") or {})
            await self.pod_writes.write(self._write_status, live, status, None, node)

    # -- a failed liveness or startup probe: kill, then restart ------------------------------
    async def _kill_for_probe(self, key, pod: dict, container: dict, worker: Worker) -> None:
        name = container["name"]
        what = "liveness" if worker.kind == "livenessProbe" else "startup"
        restart = (pod["spec"].get("restartPolicy") or "Always") != "Never"
        message = f"Container {name} failed {what} probe" + (", will be restarted" if restart else "")
        await self.pod_writes.write(self._event, pod, pod["spec"]["nodeName"], "Killing", message, container)
        self.probe_workers[key] = [w for w in self.probe_workers.get(key, []) if w.container != name]
        image = catalog.lookup(container.get("image", ""))
        stop, code = (image.stop_seconds if image is not None else 1.0), 0
        if stop is None:  # PID 1 ignores SIGTERM: SIGKILL when the grace period ends (137)
            grace = worker.probe.get("terminationGracePeriodSeconds")
            stop = float(grace if grace is not None else pod["spec"].get("terminationGracePeriodSeconds", 30))
            code = 137
        self.probe_kills[(key, name)] = (clock.monotonic() + stop, code)

    async def _restart_killed(self, key: tuple[str, str], name: str, code: int) -> None:
        """The killed container has stopped: the runtime starts it again (restartCount + 1)."""
        pod = self.informer.get("Pod", *key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        images = {c["name"]: catalog.lookup(c.get("image", "")) for c in pod["spec"].get("containers") or []}
        if any(image is None for image in images.values()):
            return
        await self.pod_writes.write(self._write_restarted, pod, name, code, images)

    def _write_restarted(self, pod: dict, name: str, code: int, images: dict) -> None:
        node = pod["spec"]["nodeName"]
        if self.restart_killed(pod, name, code):  # its process ended; a new run starts (lifecycle.py)
            return
        status = pod.get("status") or {}
        self._start_containers(pod, node, {name})
        restarted = runtime.restarted_status(
            pod, status.get("hostIP", ""), status.get("podIP", ""), images, {name}
        )
        for entry in restarted["containerStatuses"]:
            terminated = (entry.get("lastState") or {}).get("terminated")
            if entry["name"] == name and terminated:
                terminated.update(exitCode=code, reason="Completed" if code == 0 else "Error")
        self._write_status(pod, restarted, None, node)

    def shape_probed(self, pod: dict, status: dict) -> dict:
        """The status the kubelet reports, with its running containers' `ready` and `started`
        as their probes say, and the pod's Ready conditions from them (kubelet's status manager)."""
        spec = {c["name"]: c for c in (pod.get("spec") or {}).get("containers") or []}
        workers = self.probe_workers.get((pod["metadata"].get("namespace", ""), pod["metadata"]["name"]), [])
        statuses = status.get("containerStatuses") or []
        touched = False
        for entry in statuses:
            container = spec.get(entry.get("name"))
            if container is None or not (entry.get("state") or {}).get("running"):
                continue
            mine = [
                w
                for w in workers
                if w.container == entry["name"] and w.container_id == entry.get("containerID")
            ]

            results = {w.kind: w.result for w in mine}
            started = "startupProbe" not in container or bool(results.get("startupProbe"))
            ready = started and ("readinessProbe" not in container or bool(results.get("readinessProbe")))
            if entry.get("started") != started or entry.get("ready") != ready:
                entry["started"], entry["ready"] = started, ready
                touched = True
        if touched or any(not e.get("ready") for e in statuses):
            _ready_conditions(pod, status)
        return status


def _ready_conditions(pod: dict, status: dict) -> None:
    if status.get("phase") != "Running":
        return
    unready = [e["name"] for e in status.get("containerStatuses") or [] if not e.get("ready")]
    before = {c.get("type"): c for c in (pod.get("status") or {}).get("conditions") or []}
    for condition in status.get("conditions") or []:
        if condition.get("type") not in ("Ready", "ContainersReady"):
            continue
        value = "False" if unready else "True"
        previous = before.get(condition["type"]) or {}
        condition["status"] = value
        condition["lastTransitionTime"] = (
            previous.get("lastTransitionTime") if previous.get("status") == value else now_rfc3339()
        ) or now_rfc3339()
        if unready:
            condition["reason"] = "ContainersNotReady"
            condition["message"] = f"containers with unready status: [{' '.join(unready)}]"
        else:
            condition.pop("reason", None)
            condition.pop("message", None)

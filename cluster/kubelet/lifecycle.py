"""The kubelet's part after the images are pulled: run the containers, and follow them.

Init containers run one after another, each to its successful end, before the app containers
start (a sidecar, an init container with `restartPolicy: Always`, starts in its turn and keeps
running beside them). Each container runs its command (`entrypoint.py`) as a process
(`processes.py`); what it prints is its log. When it exits, its state becomes `terminated`
(Completed, Error, OOMKilled, ContainerCannotRun, with its exit code and times) and the pod's
restartPolicy decides: restart it (the first time at once, then after the crash-loop back-off,
10 s doubling to 5 minutes, waiting in CrashLoopBackOff), or leave it terminated. The pod's
status is computed from these records (`containerstatus.py`) and written through the API
server as every kubelet status report is.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field

from cluster.client.informer import db
from cluster.kubelet import adoption, containerlogs, runtime
from cluster.kubelet import images as catalog
from cluster.kubelet.containerstatus import (
    Record,
    crash_loop_message,
    next_restart_delay,
    pod_status,
    terminated_state,
)
from cluster.kubelet.entrypoint import resolve
from cluster.kubelet.processes import ContainerRun, ProcessTable, end_streams
from cluster.shell import pods as shellpods
from cluster.shell.profiles import profile_for
from k8s import clock


@dataclass(eq=False, slots=True)
class PodRun:
    """A started pod as its kubelet follows it."""

    key: tuple[str, str]
    uid: str
    node: str
    host_ip: str
    pod_ip: str
    start_time: str
    records: list[Record] = field(default_factory=list)
    finished: bool = False  # Succeeded or Failed: nothing restarts any more

    def record(self, name: str) -> Record | None:
        return next((r for r in self.records if r.name == name), None)


def _init_containers(pod: dict) -> list[dict]:
    return list((pod.get("spec") or {}).get("initContainers") or [])


def _app_containers(pod: dict) -> list[dict]:
    return list((pod.get("spec") or {}).get("containers") or [])


def ephemeral_containers(pod: dict) -> list[dict]:
    return list((pod.get("spec") or {}).get("ephemeralContainers") or [])


def spec_of(pod: dict, name: str) -> dict | None:
    every = [*_init_containers(pod), *_app_containers(pod), *ephemeral_containers(pod)]
    return next((c for c in every if c.get("name") == name), None)


def field_path(pod: dict, name: str) -> str:
    kind = "initContainers" if any(c.get("name") == name for c in _init_containers(pod)) else "containers"
    if any(c.get("name") == name for c in ephemeral_containers(pod)):
        kind = "ephemeralContainers"
    return f"spec.{kind}{{{name}}}"


class ContainerLifecycle:
    """Mixed into KubeletManager: needs `cluster`, `informer`, `pod_writes`, `_event`, `_write_status`."""

    def _init_lifecycle(self) -> None:
        kept = adoption.take_kept(self.cluster_name)  # woken after a park: its processes ran on
        self.processes = kept.processes if kept else ProcessTable()
        self.pod_runs: dict[tuple[str, str], PodRun] = dict(kept.pod_runs) if kept else {}
        if kept:
            self.handled |= kept.handled
        self.restarts_due: dict[tuple[tuple[str, str], str], float] = {}  # (pod key, container) -> when
        self.to_kill: list[ContainerRun] = []  # detached from their pods; killed in the database thread
        self.gone: list[str] = []  # uids of pods removed: their logs go
        self.old_runs: list[str] = []  # container ids of runs no status names any more: their logs go

    # -- the first start -------------------------------------------------------------------------
    def new_pod_run(self, key, pod: dict, node: str, host_ip: str, pod_ip: str, images: dict) -> PodRun:
        previous = pod.get("status") or {}
        run = PodRun(
            key, pod["metadata"].get("uid", ""), node, host_ip, pod_ip, previous.get("startTime") or ""
        )
        run.start_time = run.start_time or runtime.now_rfc3339()
        for container in _init_containers(pod):
            image = images.get(container["name"])
            run.records.append(
                Record(
                    container["name"],
                    container.get("image", ""),
                    image.image_id if image else "",
                    init=True,
                    sidecar=container.get("restartPolicy") == "Always",
                )
            )
        for container in _app_containers(pod):
            image = images.get(container["name"])
            image_id = image.image_id if image else ""
            run.records.append(Record(container["name"], container.get("image", ""), image_id))
        if not _init_containers(pod):
            for record in run.records:
                record.state = {"waiting": {"reason": "ContainerCreating"}}
        self.pod_runs[key] = run
        return run

    def next_to_start(self, run: PodRun) -> list[Record]:
        """The next init container (after the sidecars before it), or every app container."""
        for record in run.records:
            if not record.init:
                break
            if record.sidecar:
                if record.fresh:
                    return [record]
                continue
            if not record.succeeded:
                return [record] if record.fresh else []
        return [r for r in run.records if not r.init and r.fresh]

    def start_ready(self, pod: dict, run: PodRun, restarting: list[Record]) -> None:
        """Database thread: start the restarts that are due, then what comes next in order (an
        init container, the sidecars and the one after them, or the app containers)."""
        for record in restarting:
            self._start_record(pod, run, record)
        if run.finished:
            return
        while batch := self.next_to_start(run):
            for record in batch:
                self._start_record(pod, run, record)

    def _start_record(self, pod: dict, run: PodRun, record: Record) -> None:
        container = spec_of(pod, record.name)
        if container is None:
            record.state = {"waiting": {"reason": "ContainerCreating"}}
            return
        self._start_one(pod, run, record, container)

    def restart_changed(self, pod: dict, run: PodRun, changed: set[str], images: dict) -> None:
        """Database thread: the containers whose image changed were killed; they start again
        with the new image (their last run ended as the image's process ends on SIGTERM)."""
        for record in run.records:
            if record.name not in changed:
                continue
            image = images.get(record.name)
            old_run = record.run
            if old_run is not None:
                self.processes.runs.pop(old_run.container_id, None)
                _kill_runs(self.processes, [old_run])
                graceful = image is None or image.stop_seconds is not None
                ended = _Stopped(old_run, 0 if graceful else 137)
                self._replace_last_state(record, {"terminated": terminated_state(ended, _started(record))})
            record.restart_count += 1
            record.run = None
            record.image = (spec_of(pod, record.name) or {}).get("image", record.image)
            record.image_id = image.image_id if image else record.image_id
            self._start_record(pod, run, record)

    def _start_one(self, pod: dict, run: PodRun, record: Record, container: dict) -> None:
        record.container_id = runtime.container_id()
        started_at = runtime.now_rfc3339()
        image = catalog.lookup(container.get("image", ""))
        entry = resolve(container, image, profile_for(container.get("image", "")))
        ctx = shellpods.context_for(self.cluster, pod, record.name, tty=bool(container.get("tty")))
        ctx = dataclasses.replace(
            ctx, container_id=record.container_id, started_at=started_at, pod_ip=run.pod_ip
        )
        where = field_path(pod, record.name)
        created = f"Created container: {record.name}"
        self._event(pod, run.node, "Created", created, container, field_path=where)
        record.run = self.processes.start(
            ctx,
            run.key,
            run.uid,
            entry,
            image,
            record.init and not record.sidecar,
            bool(container.get("stdin")),
            bool(container.get("stdinOnce")),
        )
        self._event(pod, run.node, "Started", f"Started container {record.name}", container, field_path=where)
        if record.carried:  # the attempt after the one a restarted node lost
            record.restart_count += 1
            record.carried = False
        record.state = {"running": {"startedAt": started_at}}
        record.started = True
        record.ready = (not record.init or record.sidecar) and not record.ephemeral

    # -- exits -----------------------------------------------------------------------------------
    async def follow_processes(self) -> bool:
        """Run the due processes (database thread); handle the exits and due restarts; True when
        a status changed."""
        if self.to_kill or self.gone or self.old_runs:
            doomed, self.to_kill = self.to_kill, []
            gone, self.gone = self.gone, []
            old, self.old_runs = self.old_runs, []
            await db(self._kill_and_forget)(doomed, gone, old)
        ended: list[ContainerRun] = []
        if self.processes.has_due():
            ended = await db(self.processes.run_due)(self.cluster)
        changed: dict[tuple[str, str], PodRun] = {}
        now = clock.monotonic()
        for (key, name), due in list(self.restarts_due.items()):
            if due <= now:
                del self.restarts_due[(key, name)]
                run = self.pod_runs.get(key)
                record = run.record(name) if run is not None else None
                if record is not None and not run.finished:
                    if record.terminated:  # restarted at once: the run that ended is the last state
                        self._replace_last_state(record, {"terminated": record.terminated})
                    record.state = {"waiting": {"reason": "ContainerCreating"}}  # being restarted
                    record.run, record.restarting = None, False
                    changed[key] = run
        for container_run in ended:
            run = self._exited(container_run)
            if run is not None:
                changed[run.key] = run
        if not changed:
            return bool(ended)
        starts = []
        for key, run in changed.items():
            pod = self.informer.get("Pod", *key)
            if pod is None or pod["metadata"].get("uid") != run.uid:
                continue
            starts.append((pod, run, self._to_start(pod, run)))
        await db(self._start_all)(starts)
        await asyncio.gather(*(self._report(pod, run) for pod, run, _ in starts))
        return True

    def restart_killed(self, pod: dict, name: str, code: int) -> bool:
        """Database thread: a failed liveness or startup probe killed the container (its process
        ends with `code`); it starts again and the status is written. False for a pod this
        kubelet did not start."""
        key = (pod["metadata"].get("namespace", ""), pod["metadata"]["name"])
        run = self.pod_runs.get(key)
        record = run.record(name) if run is not None and run.uid == pod["metadata"].get("uid") else None
        if record is None:
            return False
        old_run = record.run
        # The crash-loop back-off holds for a killed container as for one that exited: the first
        # restart at once, the next ones after 10 s doubling (upstream's doBackOff in SyncPod).
        delay = next_restart_delay(record, clock.monotonic())
        if old_run is not None:
            self.processes.runs.pop(old_run.container_id, None)
            _kill_runs(self.processes, [old_run])
            terminated = terminated_state(_Stopped(old_run, code), _started(record))
            if delay > 0:
                record.run, record.ready, record.started = None, False, False
                record.state = {"terminated": terminated}
                self._restart_later(pod, run, record, delay)
                self._write_status(pod, self.started_status(pod, run), None, run.node)
                return True
            self._replace_last_state(record, {"terminated": terminated})
        record.restart_count += 1
        record.run, record.restarting = None, False
        self.restarts_due.pop((key, name), None)
        self._start_record(pod, run, record)
        self._write_status(pod, self.started_status(pod, run), None, run.node)
        return True

    def _start_all(self, starts: list) -> None:
        for pod, run, restarting in starts:
            self.start_ready(pod, run, restarting)

    def _to_start(self, pod: dict, run: PodRun) -> list[Record]:
        """The restarts that are due now (waiting as ContainerCreating after a run)."""
        restarting = [
            r
            for r in run.records
            if r.run is None
            and r.last_state
            and not r.carried
            and (r.state.get("waiting") or {}).get("reason") == "ContainerCreating"
        ]
        for record in restarting:
            record.restart_count += 1
            container = spec_of(pod, record.name) or {}
            message = f'Container image "{record.image}" already present on machine'
            self._event(pod, run.node, "Pulled", message, container, field_path=field_path(pod, record.name))
        return restarting

    def _exited(self, container_run: ContainerRun) -> PodRun | None:
        run = self.pod_runs.get(container_run.pod_key)
        if run is None or run.uid != container_run.pod_uid:
            return None
        record = run.record(container_run.name)
        if record is None or record.run is not container_run:
            return None
        started_at = (record.state.get("running") or {}).get("startedAt") or runtime.now_rfc3339()
        terminated = terminated_state(container_run, started_at)
        record.run, record.ready, record.started = None, False, False
        record.state = {"terminated": terminated}
        pod = self.informer.get("Pod", *run.key)
        if pod is None:
            return None
        policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
        code = terminated["exitCode"]
        if record.ephemeral:
            restart = False  # an ephemeral container is never restarted
        elif record.sidecar:
            restart = not run.finished
        elif record.init:
            restart = code != 0 and policy != "Never"
        else:
            restart = runtime.restarts_after(policy, code)
        if restart:
            self._restart_later(pod, run, record)
        self._finish_if_done(pod, run)
        return run

    def _restart_later(self, pod: dict, run: PodRun, record: Record, delay: float | None = None) -> None:
        if delay is None:
            delay = next_restart_delay(record, clock.monotonic())
        record.restarting = True
        if delay <= 0:  # reported terminated, then started again at once
            self.restarts_due[(run.key, record.name)] = clock.monotonic()
            return
        self._replace_last_state(record, {"terminated": record.state["terminated"]})
        message = crash_loop_message(record, pod, delay)
        record.state = {"waiting": {"reason": "CrashLoopBackOff", "message": message}}
        meta = pod["metadata"]
        reference = f"{meta['name']}_{meta.get('namespace', 'default')}({meta.get('uid', '')})"
        self._event(
            pod,
            run.node,
            "BackOff",
            f"Back-off restarting failed container {record.name} in pod {reference}",
            spec_of(pod, record.name) or {},
            "Warning",
            field_path=field_path(pod, record.name),
        )
        self.restarts_due[(run.key, record.name)] = clock.monotonic() + delay

    def _replace_last_state(self, record: Record, last_state: dict) -> None:
        """The run before is the last terminated one now; the one it replaces is gone, with its log
        (the kubelet keeps one dead container per container, as its garbage collector does)."""
        older = (record.last_state.get("terminated") or {}).get("containerID")
        if older and older != last_state["terminated"].get("containerID"):
            self.old_runs.append(older)
        record.last_state = last_state

    def _finish_if_done(self, pod: dict, run: PodRun) -> None:
        """The app containers all ended for good (or an init container failed with Never):
        the pod is finished and its sidecars are stopped."""
        policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
        apps = [r for r in run.records if not r.init and not r.ephemeral]
        failed_init = any(r.init and not r.sidecar and r.ended and not r.succeeded for r in run.records)
        done = (failed_init and policy == "Never") or all(r.ended for r in apps)
        if not done:
            return
        run.finished = True
        for record in run.records:
            if (record.sidecar or record.ephemeral) and record.run is not None:
                self.to_kill.append(record.run)
                record.state = {"terminated": terminated_state(_Stopped(record.run), _started(record))}
                record.run, record.ready, record.started = None, False, False
            self.restarts_due.pop((run.key, record.name), None)

    async def _report(self, pod: dict, run: PodRun) -> None:
        status = pod_status(pod, run.records, run.host_ip, run.pod_ip, run.start_time)
        await self.pod_writes.write(self._write_status, pod, status, None, run.node)

    def started_status(self, pod: dict, run: PodRun) -> dict:
        return pod_status(pod, run.records, run.host_ip, run.pod_ip, run.start_time)

    # -- stopping -------------------------------------------------------------------------------
    def detach_pod(self, key: tuple[str, str], uid: str) -> list[str]:
        """The pod is gone or going: its processes are taken off the run list at once (killed in
        the database thread next); the container ids whose logs go with it."""
        run = self.pod_runs.get(key)
        if run is not None and run.uid == uid:
            del self.pod_runs[key]
            for record in run.records:
                self.restarts_due.pop((key, record.name), None)
        self.gone.append(uid)
        doomed = [r for r in self.processes.runs.values() if r.pod_uid == uid]
        for container_run in doomed:
            self.processes.runs.pop(container_run.container_id, None)
        self.to_kill.extend(doomed)
        return [r.container_id for r in doomed]

    def stop_changed(self, key: tuple[str, str], names: set[str]) -> list[ContainerRun]:
        """A new image for these containers: their runs end (the kubelet kills them)."""
        run = self.pod_runs.get(key)
        out = []
        if run is None:
            return out
        for record in run.records:
            if record.name in names and record.run is not None:
                self.processes.runs.pop(record.run.container_id, None)
                out.append(record.run)
        self.to_kill.extend(out)
        return out

    def stop_processes(self, keep: bool = False) -> None:
        """Database thread: the control plane stops here, and its containers' processes with it (a
        kubelet of this process that takes the cluster again knows they were stopped, not lost);
        keep: it parks, and they wait in this process for the kubelet that starts again."""
        if keep and self.processes.runs:
            kept = adoption.Kept(self.processes, dict(self.pod_runs), set(self.handled))
            adoption.keep(self.cluster_name, kept)
            return
        adoption.remember_stopped(self.cluster_name, list(self.processes.runs))
        self.processes.kill_all()

    def lifecycle_wakeup(self) -> float | None:
        waits = [w for w in (self.processes.next_wakeup(),) if w is not None]
        if self.restarts_due:
            waits.append(max(0.0, min(self.restarts_due.values()) - clock.monotonic()))
        if self.to_kill or self.gone or self.old_runs:
            waits.append(0.0)
        return min(waits) if waits else None

    def _kill_and_forget(self, doomed: list[ContainerRun], gone: list[str], old: list[str]) -> None:
        """Database thread: kill the detached processes; the removed pods' logs go, and those of
        runs older than the last terminated one."""
        _kill_runs(self.processes, doomed)
        containerlogs.forget_pods(self.cluster, gone)
        containerlogs.forget_runs(self.cluster, old)


@dataclass(slots=True)
class _Stopped:
    """A sidecar stopped by the kubelet at the pod's end (SIGTERM: it exits 0 here)."""

    run: ContainerRun
    exit_code: int = 0
    cannot_run: str = ""
    oom_killed: bool = False

    @property
    def container_id(self) -> str:
        return self.run.container_id


def _started(record: Record) -> str:
    return (record.state.get("running") or {}).get("startedAt") or runtime.now_rfc3339()


def _kill_runs(processes: ProcessTable, doomed: list[ContainerRun]) -> None:
    for container_run in doomed:
        if container_run.process is not None:
            container_run.process.kill()
        processes.logs.end(container_run.container_id)
        end_streams(container_run)

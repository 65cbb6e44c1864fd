"""The container processes of one kubelet manager: started, resumed when due, killed.

Each container run is a `resumable.Process` (a greenlet running the shell) on the control
plane's database thread. The table keeps a wake-up list ordered by the cluster's clock: a
process that sleeps is an entry there and nothing else; one that waits with no end (a server) is
not in it at all. `run_due` resumes the processes whose time has come, for at most
`TRIP_SECONDS` of work per trip to the database thread, and returns those that ended. Their
share of the CPU is bounded (`KUBESIM_CONTAINER_CPU_SHARE`): after a trip that worked for t
seconds, the next one waits t × (1/share − 1), so a container that never sleeps is throttled
rather than holding the server.
"""

from __future__ import annotations

import collections
import dataclasses
import heapq
import itertools
import logging
import posixpath
import time
from dataclasses import dataclass, field

import greenlet
from django.conf import settings

from cluster.broadcast import nudge
from cluster.kubelet import attach, serverlogs
from cluster.kubelet.containerlogs import LogWriter
from cluster.kubelet.entrypoint import Entrypoint
from cluster.kubelet.images import Image
from cluster.models import Cluster
from cluster.shell import resumable
from cluster.shell.context import ContainerContext
from cluster.shell.filesystem import FileSystem
from cluster.shell.interpreter import ExitShell
from cluster.shell.session import STDOUT, _run_program, runtime_not_found
from cluster.shell.streams import NoInput
from k8s import clock

logger = logging.getLogger(__name__)

# Work per trip to the database thread (other components' database calls wait meanwhile).
TRIP_SECONDS = 0.02
# A sleep ends up to this late: the kubelet wakes once for the processes due meanwhile (a
# thousand looping containers cost twenty wake-ups a second, not a thousand).
WAKE_QUANTUM = 0.05


@dataclass(eq=False, slots=True)
class ContainerRun:
    """One run of one container: its process, and what the kubelet reports about it."""

    pod_key: tuple[str, str]
    pod_uid: str
    name: str
    container_id: str
    init: bool
    process: resumable.Process | None = None
    started_mono: float = field(default_factory=clock.monotonic)
    cannot_run: str = ""  # the runtime's message when its program is not in the image
    streams: attach.Point | None = None  # its standard streams, for `kubectl attach`

    @property
    def exit_code(self) -> int | None:
        return self.process.exit_code if self.process is not None else None

    @property
    def oom_killed(self) -> bool:
        return self.process is not None and self.process.oom_killed


class ProcessTable:
    def __init__(self) -> None:
        self.logs = LogWriter()
        self.runs: dict[str, ContainerRun] = {}  # by container id
        self._due: list[tuple[float, int, str]] = []  # (wake at, order, container id)
        self._order = itertools.count()
        self.ended: list[ContainerRun] = []
        self.not_before = 0.0  # time.monotonic(): the CPU share's pause after a busy trip
        # Processes parked on a read that input came for (any thread appends; run_due takes).
        self._woken: collections.deque[str] = collections.deque()

    # -- starting ---------------------------------------------------------------------------
    def start(
        self,
        ctx: ContainerContext,
        pod_key: tuple[str, str],
        pod_uid: str,
        entry: Entrypoint,
        image: Image | None,
        init: bool,
        stdin: bool,
        stdin_once: bool = False,
    ) -> ContainerRun:
        """Database thread: create the container's process; it first runs in the next trip."""
        run = ContainerRun(pod_key, pod_uid, ctx.container, ctx.container_id, init)
        budget = resumable.ContainerBudget(ctx.memory_limit)
        ctx = dataclasses.replace(ctx, budget=budget)
        cluster_name, container_id = ctx.cluster, ctx.container_id

        def wake() -> None:  # input came for the parked process (any thread)
            self._woken.append(container_id)
            nudge.NUDGES.fire(cluster_name)

        run.streams = attach.Point(cluster_name, container_id, stdin, stdin_once, ctx.tty, wake)
        attach.register(run.streams)

        def write(channel: int, text: str) -> None:
            self.logs.append(pod_uid, run.container_id, text)
            run.streams.output(channel, text)

        def main() -> int:
            fs = FileSystem(ctx)
            budget.on_pause = fs.save
            if ctx.persistent:  # shared volumes: what the others wrote meanwhile is seen
                budget.on_resume = fs.reload
            try:
                if entry.server:
                    for line in serverlogs.start_lines(image, ctx.pod_ip):
                        write(STDOUT, line + "\n")
                    resumable.pause(resumable.FOREVER)  # serves until it is stopped
                    return 0
                path_var = dict(ctx.environment()).get("PATH", "")
                if not entry.argv or fs.find_program(entry.argv[0], path_var, ctx.profile.workdir) is None:
                    run.cannot_run = cannot_run_message(entry.argv[0] if entry.argv else "")
                    return 127
                source = attach.AttachedInput(run.streams) if stdin else NoInput()
                return _main_program(ctx, fs, entry.argv, source, write)
            finally:
                fs.save()

        run.process = resumable.Process(main, budget)
        self.runs[run.container_id] = run
        self._push(clock.monotonic(), run.container_id)
        return run

    def _push(self, when: float, container_id: str) -> None:
        heapq.heappush(self._due, (when, next(self._order), container_id))

    # -- running ----------------------------------------------------------------------------
    def next_wakeup(self) -> float | None:
        """Seconds until a process is due (None: every process waits for good, or none runs)."""
        while self._due and self._due[0][2] not in self.runs:
            heapq.heappop(self._due)  # killed meanwhile
        waits = []
        if self._due:
            due_in = self._due[0][0] - clock.monotonic()
            if due_in > 0:  # wake for the processes due over a quantum together, not for each
                due_in = max(due_in, WAKE_QUANTUM)
            waits.append(max(due_in, self.not_before - time.monotonic(), 0.0))
        if self.ended or self._woken:
            waits.append(0.0)
        logs = self.logs.wait()
        if logs is not None:
            waits.append(logs)
        return min(waits) if waits else None

    def has_due(self) -> bool:
        wait = self.next_wakeup()
        return wait is not None and wait <= 0

    def run_due(self, cluster: Cluster) -> list[ContainerRun]:
        """Database thread: resume what is due (bounded), flush the logs; the runs that ended."""
        started = time.monotonic()
        while self._woken:  # input came: the parked reader runs now
            woken = self._woken.popleft()
            if woken in self.runs:
                self._push(clock.monotonic(), woken)
        if started >= self.not_before:
            now = clock.monotonic()
            busy = False
            while self._due and self._due[0][0] <= now:
                if time.monotonic() - started >= TRIP_SECONDS:
                    busy = True
                    break
                _, _, container_id = heapq.heappop(self._due)
                run = self.runs.get(container_id)
                if run is None or run.process is None:
                    continue
                try:
                    wait = run.process.resume()
                except greenlet.error:  # resumed off its thread: it cannot go on (it ends, 137)
                    logger.exception("container %s could not be resumed", container_id)
                    run.process.exit_code = 137
                    wait = None
                if wait is None:
                    self._ended(run)
                elif wait.wake_at is not None:
                    busy = busy or wait.busy
                    self._push(wait.wake_at, container_id)
            if busy:  # work that would not stop by itself: the others' share first
                worked = time.monotonic() - started
                share = max(0.01, min(1.0, settings.KUBESIM_CONTAINER_CPU_SHARE))
                self.not_before = time.monotonic() + worked * (1 / share - 1)
        ended, self.ended = self.ended, []
        if ended or self.logs.due():
            self.logs.flush(cluster)
        return ended

    def _ended(self, run: ContainerRun) -> None:
        self.runs.pop(run.container_id, None)
        self.logs.end(run.container_id)
        end_streams(run)
        self.ended.append(run)

    def kill(self, container_id: str) -> ContainerRun | None:
        """Database thread: SIGKILL the run (it unwinds at once); it is not reported as ended."""
        run = self.runs.pop(container_id, None)
        if run is not None and run.process is not None:
            run.process.kill()
            self.logs.end(container_id)
        if run is not None:
            end_streams(run)
        return run

    def kill_pod(self, pod_uid: str) -> None:
        for container_id in [cid for cid, run in self.runs.items() if run.pod_uid == pod_uid]:
            self.kill(container_id)

    def kill_all(self) -> None:
        for container_id in list(self.runs):
            self.kill(container_id)


def end_streams(run: ContainerRun) -> None:
    """The process is gone: its attached clients' streams end."""
    if run.streams is not None:
        attach.unregister(run.streams)


def cannot_run_message(program: str) -> str:
    """cri-dockerd's message for a container whose program is not in the image."""
    detail = runtime_not_found(program).split("exec: ", 1)[1]
    return (
        "failed to create task for container: failed to create shim task: OCI runtime create failed: "
        f"runc create failed: unable to start container process: exec: {detail}"
    )


def _main_program(ctx: ContainerContext, fs: FileSystem, argv: list[str], stdin, write) -> int:
    try:
        return _run_program(ctx, fs, argv, posixpath.basename(argv[0]), stdin, write)
    except ExitShell as done:
        return done.status

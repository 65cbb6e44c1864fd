"""A container's main process as resumable work: it holds no thread while it sleeps or waits.

The shell's interpreter is plain recursive Python. A container's process runs it inside a
greenlet (a coroutine with its own stack), which the kubelet resumes in short slices on the
control plane's database thread (`cluster/kubelet/processes.py`). Wherever the process would
block, it switches back to the kubelet instead:

- `sleep N` parks it until the cluster's clock (`k8s/clock.py`) reaches its end; no timer, no
  thread, only an entry in the kubelet's wake-up list;
- a wait with no end (a server, `tail -f`, a shell reading a terminal nobody types into) parks it
  with no wake-up at all;
- after `SLICE_SECONDS` of work without a pause (`while true; do :; done`) it gives the thread
  back and runs again later, as a CPU-limited container is throttled (`ContainerBudget`).

A process that is killed (its container stopped, its pod deleted, the server stopping) is
resumed once more with the kill pending: its next step raises, so it unwinds (closing what it
holds) and ends with 137.
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import greenlet

from cluster.shell.limits import Budget, BudgetExceeded
from k8s import clock

logger = logging.getLogger(__name__)

# The longest a process runs before it gives the thread back (the GIL with it).
SLICE_SECONDS = 0.002
# How often (in steps) a process looks at the time it has used in its slice.
SLICE_CHECK_EVERY = 32


@dataclass(frozen=True, slots=True)
class Wait:
    """Why a process gave the thread back: until `wake_at` on the cluster's clock, forever
    (None: a server, a read nobody will answer), or `busy` (its slice ran out)."""

    wake_at: float | None
    busy: bool = False


FOREVER = Wait(None)


class ProcessKilled(BudgetExceeded):
    """SIGKILL from the runtime: the container is stopped (137, nothing printed)."""


class _ProcessGreenlet(greenlet.greenlet):
    process: Process


def current() -> Process | None:
    """The container process running on this thread, or None (an exec, a request)."""
    here = greenlet.getcurrent()
    return here.process if isinstance(here, _ProcessGreenlet) else None


def pause(wait: Wait) -> None:
    """Give the thread back to the kubelet until `wait` is over (only inside a process)."""
    here = greenlet.getcurrent()
    assert isinstance(here, _ProcessGreenlet), "pause() outside a container process"
    budget = here.process.budget
    budget.on_pause()  # what it wrote is seen by others while it waits
    here.parent.switch(wait)
    budget.check()  # killed while it waited: end now
    budget.on_resume()


class ContainerBudget(Budget):
    """A container process's allowance. Unlike an exec it runs as long as its container: no
    total of steps or CPU time ends it; a stretch of work without a pause is throttled
    (`SLICE_SECONDS` at a time, then the others' turn); its memory is bounded as an exec's
    (over it: OOMKilled, 137); its output goes to the container's log, which rotates."""

    def __init__(self, memory_limit: int | None = None) -> None:
        super().__init__(memory_limit)
        self.max_output = 1 << 62
        self.killed = False
        self.slice_end = 0.0
        self.on_pause: Callable[[], None] = lambda: None
        self.on_resume: Callable[[], None] = lambda: None

    def kill(self) -> None:
        self.killed = True

    def check(self) -> None:
        if self.killed:
            raise ProcessKilled("killed")
        super().check()

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps % SLICE_CHECK_EVERY == 0:
            self.check()
            if time.perf_counter() > self.slice_end:
                pause(Wait(clock.monotonic(), busy=True))

    def check_cpu(self) -> None:
        return None  # throttled, never killed for it

    def sleep(self, seconds: float) -> None:
        self.check()
        if seconds == float("inf"):
            pause(FOREVER)
        elif seconds > 0:
            pause(Wait(clock.monotonic() + seconds))


class Process:
    """One container's main process: `main` (which returns the exit status) run in a greenlet.

    Created and resumed on one thread only (greenlets belong to the thread that made them): the
    control plane's database thread."""

    def __init__(self, main: Callable[[], int], budget: ContainerBudget) -> None:
        self.budget = budget
        self.exit_code: int | None = None
        self.oom_killed = False
        self.cpu_seconds = 0.0
        self._main = main
        self._greenlet = _ProcessGreenlet(self._run)
        self._greenlet.process = self
        # Its own copy of the context: the cluster's clock shift goes with it.
        self._greenlet.gr_context = contextvars.copy_context()

    def _run(self) -> int:
        try:
            return self._main()
        except ProcessKilled:
            return 137
        except BudgetExceeded as exceeded:  # OOM (or the server stopping)
            self.oom_killed = not exceeded.message.startswith("the server")
            return 137
        except Exception:  # a fault of the simulation: this container fails, the kubelet goes on
            logger.exception("a container's process failed")
            return 1

    @property
    def done(self) -> bool:
        return self.exit_code is not None

    def resume(self) -> Wait | None:
        """Run until the process waits (its Wait) or ends (None; `exit_code` set)."""
        if self.done:
            return None
        started = time.perf_counter()
        self.budget.slice_end = started + SLICE_SECONDS
        try:
            result = self._greenlet.switch()
        finally:
            self.cpu_seconds += time.perf_counter() - started
        if self._greenlet.dead:
            self.exit_code = int(result) if isinstance(result, int) else 0
            return None
        return result

    def kill(self) -> None:
        """SIGKILL: it ends at its next step (resumed here once more, so it unwinds now)."""
        self.budget.kill()
        if not self.done:
            if self._greenlet:  # started: unwind from where it waits
                self.resume()
            else:
                self.exit_code = 137
        if not self.done:  # it would not stop (cannot happen: every step checks)
            self._greenlet.throw(greenlet.GreenletExit)
            self.exit_code = 137

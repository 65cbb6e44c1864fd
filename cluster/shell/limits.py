"""What one process in a simulated container may use: steps, CPU time, memory, output, disk.

Everything typed into a container runs on the server, so every exec'd process carries a Budget
(`ContainerContext.budget`, made by `session.run_exec`) that the interpreter charges as it goes:
a step per command and per sourced line, its thread's CPU time, the bytes its variables,
expansions and pipes hold (memory), the bytes it writes to its streams (output). Each check
also asks whether the process is still wanted: the caller left (Closed), the container was
killed (Killed) or the server is stopping (`stop_all`): a stopped process ends at its next
step, and a `sleep` wakes at once. The container's writable layer is bounded separately
(`FileSystem`, "No space left on device"). The limits are settings (docs/configuration.md) and
the docs say what each one does to a command (docs/shell.md).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable

from django.conf import settings

from k8s import clock
from k8s.quantity import QuantityError, parse_quantity

# How often a sleeping process looks at its clock and at whether it is still wanted.
SLEEP_TICK_SECONDS = 0.1
# The CPU clock is read once every this many steps (a step is far cheaper than a millisecond).
CPU_CHECK_EVERY = 64


class BudgetExceeded(Exception):
    """The process used up a budget: it is killed (SIGKILL, exit 137) and told why on stderr."""

    status = 137

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OutOfMemory(BudgetExceeded):
    """Over the container's memory limit (or the server's cap): the OOM killer's SIGKILL."""


def _bytes(quantity: object) -> int | None:
    try:
        return int(parse_quantity(quantity)) if quantity not in (None, "") else None
    except (QuantityError, TypeError, ValueError):
        return None


def container_limit(container: dict, resource: str) -> int | None:
    """limits[resource] in bytes, or None where none is set."""
    return _bytes(((container.get("resources") or {}).get("limits") or {}).get(resource))


def effective(limit: int | None, cap: int) -> int:
    """The container's own limit, never above the server's cap (which protects the server)."""
    return cap if limit is None else max(0, min(limit, cap))


_running: weakref.WeakSet = weakref.WeakSet()
_running_lock = threading.Lock()
_stopping = threading.Event()


def stop_all() -> None:
    """The server is stopping: every running process ends at its next step (exit 137)."""
    _stopping.set()
    with _running_lock:
        budgets = list(_running)
    for budget in budgets:
        budget.halt()


class Budget:
    """One exec'd process's allowance; `stopped` raises Closed/Killed when its caller or
    container is gone (session.run_exec passes the stdin stream's check)."""

    def __init__(
        self,
        memory_limit: int | None = None,
        stopped: Callable[[], None] | None = None,
    ) -> None:
        self.max_steps = settings.KUBESIM_SHELL_MAX_STEPS
        self.max_cpu = settings.KUBESIM_SHELL_CPU_SECONDS
        self.memory = effective(memory_limit, settings.KUBESIM_SHELL_MEMORY_BYTES)
        self.max_output = settings.KUBESIM_SHELL_OUTPUT_BYTES
        self._stopped = stopped or (lambda: None)
        self._halted = threading.Event()
        self.held = 0  # bytes held now (variables, pipes, substitutions)
        self.written = 0
        self.restart()
        with _running_lock:
            _running.add(self)
        if _stopping.is_set():
            self._halted.set()

    def restart(self) -> None:
        """A new command line of an interactive shell: a fresh allowance of steps and CPU."""
        self.steps = 0
        self.cpu_start = time.thread_time()

    def halt(self) -> None:
        self._halted.set()

    def check(self) -> None:
        """Still wanted? (raises Closed or Killed, or BudgetExceeded when the server stops)."""
        self._stopped()
        if self._halted.is_set():
            raise BudgetExceeded("the server is stopping")

    def step(self, count: int = 1) -> None:
        self.steps += count
        if self.steps > self.max_steps:
            raise BudgetExceeded(f"it ran more than {self.max_steps} steps (KUBESIM_SHELL_MAX_STEPS)")
        self.check()
        if self.steps % CPU_CHECK_EVERY == 0:
            self.check_cpu()

    def check_cpu(self) -> None:
        if time.thread_time() - self.cpu_start > self.max_cpu:
            raise BudgetExceeded(f"it used more than {self.max_cpu:g} s of CPU (KUBESIM_SHELL_CPU_SECONDS)")

    def need(self, size: int) -> None:
        """Would `size` more bytes fit? Raised before they are made, so they never are."""
        if self.held + size > self.memory:
            raise OutOfMemory("out of memory")

    def hold(self, size: int) -> None:
        self.need(size)
        self.held += size

    def release(self, size: int) -> None:
        self.held = max(0, self.held - size)

    def output(self, size: int) -> None:
        self.written += size
        if self.written > self.max_output:
            raise BudgetExceeded(f"it wrote more than {self.max_output} bytes (KUBESIM_SHELL_OUTPUT_BYTES)")

    def sleep(self, seconds: float) -> None:
        """Sleep on the cluster's clock (a jump or a test's clock wakes it), waking at once when
        the process is no longer wanted."""
        deadline = clock.monotonic() + seconds
        while (remaining := deadline - clock.monotonic()) > 0:
            self.check()
            self._halted.wait(min(remaining, SLEEP_TICK_SECONDS))
        self.check()


def unlimited() -> Budget:
    """For a context made outside an exec (a peer container answering a request)."""
    return Budget()

"""The web console: kubectl's commands, run server-side against `cluster.apiserver`.

Output is kubectl's: tables come from F's `cluster.kubeapi.tables` (the same Table real kubectl
receives) and are laid out by `printer`; `describe` is F's `cluster.kubeapi.describe`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cluster.apiserver import service as api
from cluster.models import Cluster
from dashboard.console.parser import UsageError, parse
from dashboard.console.workdir import Workdir


@dataclass(slots=True)
class ConsoleResult:
    output: str
    exit_code: int = 0
    # Instructions for the page: {"panel": "scheduler", "namespace": .., "pod": ..} or a watch.
    ui: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"output": self.output, "exit_code": self.exit_code, "ui": self.ui}


def server_error(exc: api.ApiError) -> str:
    return f"Error from server ({exc.reason}): {exc.message}\n"


WRITE_VERBS = frozenset({"label", "cordon", "uncordon", "taint", "scale", "delete", "create", "apply"})


def run_command(
    cluster: Cluster,
    line: str,
    stdin: str = "",
    workdir: Workdir | None = None,
    check_write: Callable[[], None] | None = None,
) -> ConsoleResult:
    """Run one command line. `workdir` holds the files `-f FILE`, `ls` and `cat` see (the course's
    examples when None); `check_write` raises the API's ApiError when this browser may not write."""
    from dashboard.console import reads, shell, writes

    handlers = reads.HANDLERS | writes.HANDLERS
    workdir = workdir or Workdir()
    try:
        cmd = parse(line)
        if cmd.flags.get("help"):
            return ConsoleResult(shell.usage(cmd.verb))
        if cmd.verb in shell.FILE_COMMANDS:
            return shell.FILE_COMMANDS[cmd.verb](workdir, cmd)
        handler = handlers.get(cmd.verb)
        if handler is None:
            raise UsageError(
                f'error: unknown command "{cmd.verb}" for "kubectl"\n'
                "Run 'help' for the commands this console knows."
            )
        stdin = shell.file_input(workdir, cmd, stdin)
        if cmd.verb in WRITE_VERBS and check_write is not None:
            check_write()
        return handler(cluster, cmd, stdin)
    except UsageError as exc:
        text = str(exc)
        return ConsoleResult(text + "\n" if text else "", 1 if text else 0)
    except api.ApiError as exc:
        return ConsoleResult(server_error(exc), 1)

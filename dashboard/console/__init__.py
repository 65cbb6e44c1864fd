"""The web console: kubectl's commands, run server-side against `cluster.apiserver`.

Output is kubectl's: tables come from F's `cluster.kubeapi.tables` (the same Table real kubectl
receives) and are laid out by `printer`; `describe` is F's `cluster.kubeapi.describe`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.apiserver import service as api
from cluster.models import Cluster
from dashboard.console.parser import UsageError, parse


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


def run_command(cluster: Cluster, line: str, stdin: str = "", who=None) -> ConsoleResult:
    from dashboard.console import reads, writes
    from dashboard.console.exec import exec_command

    handlers = reads.HANDLERS | writes.HANDLERS
    try:
        cmd = parse(line)
        if cmd.verb == "exec":
            return exec_command(cluster, cmd, stdin, who)
        handler = handlers.get(cmd.verb)
        if handler is None:
            raise UsageError(
                f'error: unknown command "{cmd.verb}" for "kubectl"\n'
                "Run 'help' for the commands this console knows."
            )
        return handler(cluster, cmd, stdin)
    except UsageError as exc:
        text = str(exc)
        return ConsoleResult(text + "\n" if text else "", 1 if text else 0)
    except api.ApiError as exc:
        return ConsoleResult(server_error(exc), 1)

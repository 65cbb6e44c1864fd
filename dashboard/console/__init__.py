"""The web console: kubectl's commands, run server-side against `cluster.apiserver`.

Output is kubectl's: tables come from `cluster.kubeapi.tables` (the same Table real kubectl
receives) and are laid out by `printer`; `describe` runs the kind's describe hook. Every write
goes through the console's client, authorized as the REST request kubectl would send for it.
A command kubectl has that the console does not run says so; one kubectl does not have gets
kubectl's own error, and a pointer to `help`.
"""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.models import Cluster
from dashboard.console import shell
from dashboard.console.client import Client
from dashboard.console.commands import ACCEPTED, COMMANDS
from dashboard.console.context import Context
from dashboard.console.parser import KUBECTL, CommandLine, UsageError, not_run, parse
from dashboard.console.result import ConsoleResult, server_error
from dashboard.console.suggest import suggestions
from dashboard.console.workdir import Workdir

__all__ = ["ConsoleResult", "run_command", "server_error"]

HELP_POINTER = "Run 'help' for the commands this console knows."


# Commands that only group others: alone they print their help, as kubectl's do.
PARENTS = frozenset({("rollout",), ("set",), ("top",), ("create", "service"), ("create", "secret")})


def _not_spoken(cmd: CommandLine) -> ConsoleResult:
    """A command path the console does not run: kubectl's own answer where kubectl has one."""
    if cmd.verb not in KUBECTL["commands"]:
        text = f'error: unknown command "{cmd.verb}" for "kubectl"{suggestions(cmd.verb)}\n{HELP_POINTER}\n'
        return ConsoleResult(text, 1)
    if cmd.path in PARENTS:
        if not cmd.args:
            return ConsoleResult(shell.usage(cmd.path))
        see = f"See 'kubectl {cmd.name} -h' for help and examples"
        return ConsoleResult(f'error: unknown command "{cmd.args[0]}"\n{see}\n', 1)
    return ConsoleResult(f"{not_run(cmd)}\n{HELP_POINTER}\n", 1)


def run_command(
    cluster: Cluster, line: str, stdin: str = "", who=None, workdir: Workdir | None = None
) -> ConsoleResult:
    """Run one console line; `who` is the request, whose rights every write is checked against.

    `who=None` is the server itself (a lab's self-test), which is not checked. `workdir` holds the
    files `-f FILE`, `ls`, `cat` and `--from-file` see (the course's examples when None)."""
    workdir = workdir or Workdir()
    try:
        cmd = parse(line, ACCEPTED)
        if cmd.flags.get("help"):
            return ConsoleResult(shell.usage(cmd.path))
        spec = COMMANDS.get(cmd.path)
        if spec is None:
            return _not_spoken(cmd)
        if spec.reads_file:
            stdin = shell.file_input(workdir, cmd, stdin)
        return spec.run(Context(cluster, Client(cluster, who, cmd.path), workdir, stdin), cmd)
    except UsageError as exc:
        text = str(exc)
        return ConsoleResult(text + "\n" if text else "", 1 if text else 0)
    except api.ApiError as exc:
        return ConsoleResult(server_error(exc), 1)

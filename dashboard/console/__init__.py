"""The web console: kubectl's commands, run server-side against `cluster.apiserver`.

Output is kubectl's: tables come from `cluster.kubeapi.tables` (the same Table real kubectl
receives) and are laid out by `printer`; `describe` runs the kind's describe hook
(`cluster.kubeapi.describe` for pods and nodes).
"""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.auth.access import authorize
from cluster.models import Cluster
from dashboard.console import reads, shell, writes
from dashboard.console.exec import exec_command
from dashboard.console.parser import UsageError, parse, resource_for
from dashboard.console.result import ConsoleResult, server_error
from dashboard.console.workdir import Workdir

__all__ = ["ConsoleResult", "run_command", "server_error"]


# The Kubernetes verb each writing command needs (cluster.auth.access authorizes it before it runs).
WRITE_VERBS = {
    "label": "patch",
    "cordon": "patch",
    "uncordon": "patch",
    "taint": "patch",
    "scale": "patch",
    "delete": "delete",
    "create": "create",
    "apply": "patch",
}


def _authorize(who, cluster: Cluster, cmd) -> None:
    verb = WRITE_VERBS[cmd.verb]
    resource, group, namespace = "pods", "", cmd.namespace
    if cmd.verb in ("cordon", "uncordon", "taint"):
        resource, namespace = "nodes", ""
    elif cmd.args and cmd.verb in ("label", "scale", "delete"):
        try:
            found = resource_for(cmd.args[0].split("/")[0])
            resource, group = found.plural, found.group
            namespace = namespace if found.namespaced else ""
        except UsageError:
            pass
    authorize(who, cluster, verb, resource, group=group, namespace=namespace)


def run_command(
    cluster: Cluster, line: str, stdin: str = "", who=None, workdir: Workdir | None = None
) -> ConsoleResult:
    """Run one console line; `who` (the request) must be allowed to write for writing commands.

    `who=None` is the server itself (a lab's self-test), which is not checked. `workdir` holds the
    files `-f FILE`, `ls` and `cat` see (the course's examples when None)."""
    handlers = reads.HANDLERS | writes.HANDLERS
    workdir = workdir or Workdir()
    try:
        cmd = parse(line)
        if cmd.flags.get("help"):
            return ConsoleResult(shell.usage(cmd.verb))
        if cmd.verb in shell.FILE_COMMANDS:
            return shell.FILE_COMMANDS[cmd.verb](workdir, cmd)
        if cmd.verb == "exec":
            return exec_command(cluster, cmd, stdin, who)
        handler = handlers.get(cmd.verb)
        if handler is None:
            raise UsageError(
                f'error: unknown command "{cmd.verb}" for "kubectl"\n'
                "Run 'help' for the commands this console knows."
            )
        stdin = shell.file_input(workdir, cmd, stdin)
        if cmd.verb in writes.HANDLERS and who is not None:  # None: a trusted server-side caller
            _authorize(who, cluster, cmd)
        return handler(cluster, cmd, stdin)
    except UsageError as exc:
        text = str(exc)
        return ConsoleResult(text + "\n" if text else "", 1 if text else 0)
    except api.ApiError as exc:
        return ConsoleResult(server_error(exc), 1)

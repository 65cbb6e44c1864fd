"""`kubectl exec` in the web console, with the same checks and the same shell as the pods/exec socket.

`exec POD -- CMD` runs here and prints what kubectl would; `exec -it POD -- bash` (or `-i`) hands
the page the pods/exec websocket path, and the console becomes the terminal of that session.
"""

from __future__ import annotations

import threading
from urllib.parse import quote, urlencode

from cluster import execsessions
from cluster.api.exec_access import authorize
from cluster.api.exec_target import internal_error, parse_options, resolve, runtime_error
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.auth import access
from cluster.models import Cluster
from cluster.shell.pods import context_for
from cluster.shell.session import run_exec
from cluster.shell.streams import NoInput
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, UsageError
from dashboard.console.result import ConsoleResult

# One-shot execs run in a request thread until they end (a `sleep 30`): at most this many at once
# in a process, so that they never take the request threads everyone else's clicks need
# (kubesim/handler.py MAX_REQUEST_THREADS).
MAX_RUNNING = 8
_running = threading.BoundedSemaphore(MAX_RUNNING)
BUSY = "the web console runs too many exec commands at once; try again in a moment"

NO_POD = "error: pod, type/name or --filename must be specified"
OLD_FORM = (
    "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\n"
    "See 'kubectl exec -h' for help and examples"
)


def _pod_name(cmd: CommandLine) -> str:
    if not cmd.args:
        raise UsageError(NO_POD)
    name = cmd.args[0]
    if "/" in name:
        kind, _, name = name.partition("/")
        if kind not in ("pod", "pods", "po"):
            raise UsageError(f"error: cannot exec into a {kind}: only pods run commands in this console")
    return name


def _container(cmd: CommandLine, pod: dict) -> tuple[str, str]:
    """kubectl's own choice of container (podcmd.FindOrDefaultContainerByName) and its note."""
    wanted = cmd.flag("container")
    if wanted:
        return wanted, ""
    containers = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
    annotations = pod["metadata"].get("annotations") or {}
    default = annotations.get("kubectl.kubernetes.io/default-container") or (
        containers[0] if containers else ""
    )
    note = f'Defaulted container "{default}" out of: {", ".join(containers)}\n' if len(containers) > 1 else ""
    return default, note


def exec_command(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    cluster, who = ctx.cluster, ctx.who
    name = _pod_name(cmd)
    if len(cmd.args) > 1:
        raise UsageError(OLD_FORM)
    if not cmd.command:
        raise UsageError("error: you must specify at least one command for the container")
    # who=None: the server itself (a lab's self-test), not checked, as for the other commands
    user_name = authorize(who, cluster, cmd.namespace, name) if who is not None else "kubesim"
    pod = api.get(cluster, "Pod", cmd.namespace, name)
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        raise UsageError(f"error: cannot exec into a container in a completed pod; current phase is {phase}")
    container, note = _container(cmd, pod)
    interactive = bool(cmd.flags.get("stdin") or cmd.flags.get("stdin_tty"))
    tty = interactive and bool(cmd.flags.get("tty") or cmd.flags.get("stdin_tty"))
    # kubectl's streams: a terminal carries stdout and stderr together
    query = {"command": cmd.command, "container": [container], "stdout": ["true"]}
    query["tty" if tty else "stderr"] = ["true"]
    if interactive:
        query["stdin"] = ["true"]
    options = parse_options(cmd.namespace, name, query)
    pod, container = resolve(cluster, options)
    problem = runtime_error(pod, container)
    if problem:
        raise UsageError(f"error: {internal_error(problem).message}")
    if interactive:
        path = f"/clusters/{cluster.name}/api/v1/namespaces/{quote(cmd.namespace)}/pods/{quote(name)}/exec"
        session = {
            "path": f"{path}?{urlencode(query, doseq=True)}",
            "pod": name,
            "container": container,
            "namespace": cmd.namespace,
            "tty": tty,
        }
        return ConsoleResult(note, 0, {"exec": session})
    holder = execsessions.holder_of(access.caller_of(who)) if who is not None else ""
    return _run_once(cluster, pod, container, options, note, user_name, holder)


def _run_once(
    cluster: Cluster, pod: dict, container: str, options, note: str, user_name: str, holder: str
) -> ConsoleResult:
    # The same caps as kubectl's sessions: this one holds a request thread while it runs.
    execsessions.check_room(cluster, holder)
    if not _running.acquire(blocking=False):
        raise ApiError(429, "TooManyRequests", BUSY)
    try:
        return _run_in_slot(cluster, pod, container, options, note, user_name, holder)
    finally:
        _running.release()


def _run_in_slot(
    cluster: Cluster, pod: dict, container: str, options, note: str, user_name: str, holder: str
) -> ConsoleResult:
    ctx = context_for(cluster, pod, container, tty=False)
    chunks: list[str] = [note]
    session = execsessions.opened(
        cluster.name, ctx.namespace, ctx.pod, container, options.command, user_name, "web", False, holder
    )
    status = None
    try:
        status = run_exec(ctx, options.command, NoInput(), lambda _channel, text: chunks.append(text))
    finally:
        execsessions.closed(session, status)
    if status:
        chunks.append(f"command terminated with exit code {status}\n")
    return ConsoleResult("".join(chunks), status or 0)

"""One probe, as the kubelet's prober runs it (pkg/probe/{exec,http,tcp,grpc}): against the
simulated container's servers and shell, with upstream's words for each outcome.

The pod's containers share one network: a port answers when a running container of the pod has a
server on it (the image's, `cluster/shell/profiles.py` `Profile.port`). httpGet asks that server
as curl would (nginx serves its html directory as the students left it); a server that does not
speak HTTP answers as it would a Go HTTP client. exec runs the command in the container's shell
(`cluster/shell/session.py`), on a budget no longer than the probe's timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cluster.shell import agnhost, web
from cluster.shell.filesystem import FileSystem
from cluster.shell.profiles import profile_for
from cluster.shell.session import run_exec
from cluster.shell.streams import Killed, NoInput

# An exec probe's command gets at most this much wall time, whatever its timeoutSeconds: a probe
# is a check, and a student's `sleep 3600` in one must not hold a kubelet thread for an hour.
EXEC_WALL_CAP_SECONDS = 10.0
# What servers that do not speak HTTP answer a Go HTTP client's `GET / HTTP/1.1` with.
_NOT_HTTP = {
    "redis": "net/http: HTTP/1.x transport connection broken: malformed HTTP response "
    "\"-ERR wrong number of arguments for 'get' command\"",
    "memcached": 'net/http: HTTP/1.x transport connection broken: malformed HTTP response "ERROR"',
}


@dataclass(frozen=True, slots=True)
class Outcome:
    ok: bool
    output: str  # what the Unhealthy event quotes after "<Kind> probe failed: "


def go_duration(seconds: int) -> str:
    """time.Duration's String() for whole seconds: 1s, 1m30s."""
    if seconds < 60:
        return f"{seconds}s"
    minutes, rest = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    text = f"{hours}h{minutes}m{rest}s" if hours else f"{minutes}m{rest}s"
    return text


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def resolve_port(port: object, container: dict) -> int | None:
    """An int, or a named port of the container (probe.ResolveContainerPort)."""
    if isinstance(port, int):
        return port
    if isinstance(port, str) and port.isdigit():
        return int(port)
    for declared in container.get("ports") or []:
        if declared.get("name") == port:
            return declared.get("containerPort")
    return None


def agnhost_server(container: dict) -> tuple[str, int] | None:
    argv = [*(container.get("command") or []), *(container.get("args") or [])]
    return agnhost.server_of(profile_for(container.get("image", "")).family, argv)


def server_port(container: dict) -> int:
    """The port the container's server listens on: its agnhost subcommand's, or its image's."""
    served = agnhost_server(container)
    return served[1] if served is not None else profile_for(container.get("image", "")).port


def listener(pod: dict, port: int) -> dict | None:
    """The running container of the pod that has a server on `port`, if any."""
    running = {
        s.get("name")
        for s in (pod.get("status") or {}).get("containerStatuses") or []
        if (s.get("state") or {}).get("running")
    }
    for container in (pod.get("spec") or {}).get("containers") or []:
        if container.get("name") in running and server_port(container) == port:
            return container
    return None


def _started_at(pod: dict, name: str) -> str:
    for entry in (pod.get("status") or {}).get("containerStatuses") or []:
        if entry.get("name") == name:
            return ((entry.get("state") or {}).get("running") or {}).get("startedAt", "")
    return ""


def _refused(host: str, port: int) -> str:
    return f"dial tcp {_host_port(host, port)}: connect: connection refused"


def tcp_socket(pod: dict, container: dict, action: dict) -> Outcome:
    pod_ip = (pod.get("status") or {}).get("podIP", "")
    host = action.get("host") or pod_ip
    port = resolve_port(action.get("port"), container)
    if port is None:
        return Outcome(False, f"couldn't find port: {action.get('port')}")
    if host == pod_ip and listener(pod, port) is not None:
        return Outcome(True, "")
    return Outcome(False, _refused(host, port))


def grpc(pod: dict, container: dict, action: dict, timeout: int) -> Outcome:
    """None of the catalogue's servers speaks gRPC health (grpc.health.v1): a gRPC probe never
    connects, and fails as the kubelet's blocking dial does when its timeout ends."""
    pod_ip = (pod.get("status") or {}).get("podIP", "")
    address = _host_port(pod_ip, int(action.get("port") or 0))
    within = go_duration(timeout)
    return Outcome(
        False, f'timeout: failed to connect service "{address}" within {within}: context deadline exceeded'
    )


def http_get(cluster, pod: dict, container: dict, action: dict, context_for) -> Outcome:
    """`context_for(pod, container_name)`: the serving container's shell context (its files)."""
    pod_ip = (pod.get("status") or {}).get("podIP", "")
    host = action.get("host") or pod_ip
    scheme = (action.get("scheme") or "HTTP").lower()
    port = resolve_port(action.get("port"), container)
    if port is None:
        return Outcome(False, f"couldn't find port: {action.get('port')}")
    path = action.get("path") or "/"
    url = f"{scheme}://{_host_port(host, port)}{path if path.startswith('/') else '/' + path}"
    server = listener(pod, port) if host == pod_ip else None
    if server is None:
        return Outcome(False, f'Get "{url}": {_refused(host, port)}')
    served = agnhost_server(server)
    if served is not None:
        response = agnhost.serve(
            served[0], path, pod["metadata"]["name"][:63], _started_at(pod, server["name"])
        )
        if 200 <= response.status < 400:
            return Outcome(True, "")
        return Outcome(False, f"HTTP probe failed with statuscode: {response.status}")
    profile = profile_for(server.get("image", ""))
    if not web.speaks_http(profile):
        return Outcome(False, f'Get "{url}": {_NOT_HTTP.get(profile.family, "EOF")}')
    if scheme == "https":
        return Outcome(False, f'Get "{url}": http: server gave HTTP response to HTTPS client')
    fs = FileSystem(context_for(pod, server["name"]))
    response = web.serve(profile, fs, path)
    if 200 <= response.status < 400:
        return Outcome(True, "")
    return Outcome(False, f"HTTP probe failed with statuscode: {response.status}")


class _Deadline(NoInput):
    """stdin of an exec probe: none, and the process is killed when the probe's time is up."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds
        self.timed_out = False

    def check(self) -> None:
        super().check()
        if time.monotonic() > self.deadline:
            self.timed_out = True
            raise Killed(137)


def exec_command(ctx, action: dict, timeout: int) -> Outcome:
    """The command in the container (ExecSync): exit 0 is success; its output is the message."""
    command = [str(word) for word in action.get("command") or []]
    out: list[str] = []
    stdin = _Deadline(min(float(timeout), EXEC_WALL_CAP_SECONDS))
    status = run_exec(ctx, command, stdin, lambda _channel, text: out.append(text))
    if stdin.timed_out:
        return Outcome(False, f'command "{" ".join(command)}" timed out')
    return Outcome(status == 0, "".join(out))

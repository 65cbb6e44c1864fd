"""The pod's side of a forwarded port: which server listens on it, in the runtime's words when
none does.

The container runtime (containerd) dials `localhost:PORT` inside the pod's network namespace: any
running container of the pod with a server on that port answers (the image's, or agnhost's
subcommand, as the probes find it: cluster/kubelet/probechecks.py). Servers that speak HTTP
(nginx, httpd, tomcat, agnhost) answer through the same code as curl from a pod; the others
(redis, mysql, memcached) accept the connection and close it, since their protocols are not
simulated.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from cluster.api.portforward.target import current
from cluster.kubelet.containerlogs import timestamp
from cluster.kubelet.probechecks import agnhost_server, listener
from cluster.models import Cluster, ContainerLogChunk
from cluster.shell import agnhost, web
from cluster.shell.filesystem import FileSystem
from cluster.shell.pods import context_for, running_container_id
from cluster.shell.profiles import Profile, profile_for
from cluster.shell.web import Response

# How long each server keeps an idle keep-alive connection (nginx.conf's keepalive_timeout 65,
# httpd's KeepAliveTimeout 5, tomcat's connectionTimeout 20 s); agnhost's Go server has none.
KEEPALIVE_SECONDS = {"nginx": 65.0, "httpd": 5.0, "tomcat": 20.0}


def sandbox_id(pod: dict) -> str:
    """The runtime's id of the pod's sandbox (64 hex digits, stable for the pod)."""
    return hashlib.sha256(f"sandbox/{pod['metadata'].get('uid', '')}".encode()).hexdigest()


def netns_path(pod: dict) -> str:
    digest = hashlib.sha256(f"netns/{pod['metadata'].get('uid', '')}".encode()).digest()
    return f"/var/run/netns/cni-{uuid.UUID(bytes=digest[:16], version=4)}"


def refused(pod: dict, port: int) -> str:
    """The kubelet's error (the streaming server's words around containerd's) for a port nothing
    listens on, as the error stream carries it."""
    sandbox = sandbox_id(pod)
    return (
        f"error forwarding port {port} to pod {sandbox}, uid : failed to execute portforward in network "
        f'namespace "{netns_path(pod)}": failed to connect to localhost:{port} inside namespace "{sandbox}", '
        f"IPv4: dial tcp4 127.0.0.1:{port}: connect: connection refused "
        f"IPv6 dial tcp6 [::1]:{port}: connect: connection refused "
    )


@dataclass(slots=True)
class Server:
    """What answers on the port: `respond(method, path)` for an HTTP server (None: a server whose
    protocol is not simulated), and `log(line)`, which prints to the container's log."""

    family: str
    respond: Callable[[str, str], Response] | None
    log: Callable[[str], None]
    keepalive: float | None
    profile: Profile | None = None


def gone(pod: dict, port: int) -> str:
    """The kubelet's error once the pod's sandbox is gone (containerd's words)."""
    sandbox = sandbox_id(pod)
    return (
        f"error forwarding port {port} to pod {sandbox}, uid : "
        f'failed to find sandbox "{sandbox}" in store: not found'
    )


def open_port(cluster: Cluster, pod: dict, port: int) -> Server | str:
    """The server listening on `port` in the pod as it is now, or the error message when none does."""
    first, pod = pod, current(cluster, pod)
    if pod is None:
        return gone(first, port)
    container = listener(pod, port)
    if container is None:
        return refused(pod, port)
    name = container["name"]
    container_id = running_container_id(pod, name) or ""
    uid = pod["metadata"].get("uid", "")

    def log(line: str) -> None:
        ContainerLogChunk.objects.create(
            cluster=cluster, pod_uid=uid, container_id=container_id, text=f"{timestamp()} {line}\n"
        )

    served = agnhost_server(container)
    if served is not None:
        hostname, started = pod["metadata"]["name"][:63], _started_at(pod, name)
        return Server(
            "agnhost", lambda method, path: agnhost.serve(served[0], path, hostname, started), log, None
        )
    profile = profile_for(container.get("image", ""))
    if not web.speaks_http(profile):
        return Server(profile.family, None, log, None)
    fs = FileSystem(context_for(cluster, pod, name, False, with_services=False))

    def respond(method: str, path: str) -> Response:
        if profile.family == "nginx" and method not in ("GET", "HEAD"):
            return _nginx_not_allowed(profile)  # a static file takes no POST, PUT, ...
        return web.serve(profile, fs, path, "HEAD" if method == "HEAD" else "GET")

    return Server(profile.family, respond, log, KEEPALIVE_SECONDS.get(profile.family), profile)


def _nginx_not_allowed(profile: Profile) -> Response:
    body = web.nginx_error_page(profile, 405, "Not Allowed")
    headers = [
        ("Server", f"nginx/{profile.version}"),
        ("Date", web.http_date()),
        ("Content-Type", "text/html"),
        ("Content-Length", str(len(body.encode()))),
        ("Connection", "keep-alive"),
    ]
    return Response(405, "Not Allowed", headers, body)


def _started_at(pod: dict, name: str) -> str:
    for entry in (pod.get("status") or {}).get("containerStatuses") or []:
        if entry.get("name") == name:
            return ((entry.get("state") or {}).get("running") or {}).get("startedAt", "")
    return ""

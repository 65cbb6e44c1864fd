"""What a container runs: its image's ENTRYPOINT and CMD, overridden by `command` and `args`.

As Docker and the kubelet combine them: `command` replaces the ENTRYPOINT (and then the CMD is
dropped), `args` replaces the CMD. The images' defaults are those of their Dockerfiles. When what
runs is the image's server (nginx, httpd, redis-server, mysqld, catalina.sh, the pause and
control-plane binaries), the container is that server: it prints its start-up lines and serves
until it is stopped. Anything else runs in the simulated shell (`cluster/shell/`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from cluster.shell.profiles import Profile

# family -> (ENTRYPOINT, CMD) as the official images' Dockerfiles set them.
_DEFAULTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "nginx": (("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;")),
    "httpd": ((), ("httpd-foreground",)),
    "redis": (("docker-entrypoint.sh",), ("redis-server",)),
    "mysql": (("docker-entrypoint.sh",), ("mysqld",)),
    "tomcat": ((), ("catalina.sh", "run")),
    "python": ((), ("python3",)),
    "busybox": ((), ("sh",)),
    "alpine": ((), ("/bin/sh",)),
    "ubuntu": ((), ("/bin/bash",)),
    "centos": ((), ("/bin/bash",)),
    "distroless": (("/pause",), ()),
}

# The wrappers that run their arguments when these are not the server (`exec "$@"`).
_WRAPPERS = {"docker-entrypoint.sh", "/docker-entrypoint.sh", "/usr/local/bin/docker-entrypoint.sh"}
SERVERS = {
    "nginx",
    "nginx-debug",
    "httpd",
    "httpd-foreground",
    "redis-server",
    "mysqld",
    "catalina.sh",
    "pause",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kube-proxy",
    "etcd",
    "coredns",
    "flanneld",
}


@dataclass(frozen=True, slots=True)
class Entrypoint:
    argv: list[str]  # what runs, the wrapper left out
    server: bool  # the image's server (prints its start-up lines and serves)


def command_line(container: dict, profile: Profile) -> list[str]:
    """ENTRYPOINT + CMD after the pod's command and args, as the runtime starts it."""
    entry, cmd = _DEFAULTS.get(profile.family, ((), ()))
    command = [str(word) for word in container.get("command") or []]
    args = [str(word) for word in container.get("args") or []]
    if command:
        return command + args
    return [*entry, *(args or cmd)]


def resolve(container: dict, profile: Profile) -> Entrypoint:
    argv = command_line(container, profile)
    if argv and argv[0] in _WRAPPERS and len(argv) > 1:
        argv = argv[1:]  # the entrypoint script runs what it is given
    name = posixpath.basename(argv[0]) if argv else ""
    server = profile.family == "distroless" or (bool(argv) and name in SERVERS)
    return Entrypoint(argv, server)

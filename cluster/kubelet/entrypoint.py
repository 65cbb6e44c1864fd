"""What a container runs: its image's ENTRYPOINT and CMD, overridden by `command` and `args`.

As Docker and the kubelet combine them: `command` replaces the ENTRYPOINT (and then the CMD is
dropped), `args` replaces the CMD. The images' defaults are those of their Dockerfiles, as the
catalogue records them (`cluster/kubelet/catalogue.py`). When what
runs is the image's server (nginx, httpd, redis-server, mysqld, catalina.sh, the pause and
control-plane binaries), the container is that server: it prints its start-up lines and serves
until it is stopped. Anything else runs in the simulated shell (`cluster/shell/`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from cluster.kubelet.images import Image
from cluster.shell.profiles import Profile

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
    "postgres",
    "memcached",
    "agnhost",
}


@dataclass(frozen=True, slots=True)
class Entrypoint:
    argv: list[str]  # what runs, the wrapper left out
    server: bool  # the image's server (prints its start-up lines and serves)


def command_line(container: dict, image: Image | None) -> list[str]:
    """ENTRYPOINT + CMD (the catalogue's, `images.py`) after the pod's command and args, as the
    runtime starts it."""
    entry, cmd = (image.entrypoint, image.cmd) if image is not None else ((), ())
    command = [str(word) for word in container.get("command") or []]
    args = [str(word) for word in container.get("args") or []]
    if command:
        return command + args
    return [*entry, *(args or cmd)]


def _unwrapped(argv: list[str]) -> list[str]:
    if argv and argv[0] in _WRAPPERS and len(argv) > 1:
        return argv[1:]  # the entrypoint script runs what it is given
    return argv


def resolve(container: dict, image: Image | None, profile: Profile) -> Entrypoint:
    argv = _unwrapped(command_line(container, image))
    name = posixpath.basename(argv[0]) if argv else ""
    # The image's own program, where the catalogue says it keeps running (a server, a proxy).
    own = image is not None and image.long_running and argv[:1] == _unwrapped(command_line({}, image))[:1]
    server = profile.family == "distroless" or (bool(argv) and (name in SERVERS or own))
    return Entrypoint(argv, server)

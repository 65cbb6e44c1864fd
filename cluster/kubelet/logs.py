"""Plausible container logs, as `kubectl logs` shows them, generated from the pod's real state.

The "containers" are simulated, so their output is derived from the image (nginx prints its
entrypoint lines, redis its startup banner) and the container's start time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kubelet import images as catalog
from cluster.models import Cluster

_PROFILES = {
    "nginx": [
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
        "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
        "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
        "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
        "/docker-entrypoint.sh: Configuration complete; ready for start up",
        '{ts} [notice] 1#1: using the "epoll" event method',
        "{ts} [notice] 1#1: start worker processes",
    ],
    "httpd": [
        "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using {ip}. "
        "Set the 'ServerName' directive globally to suppress this message",
        "[{ts}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4.62 (Unix) configured -- "
        "resuming normal operations",
        "[{ts}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'",
    ],
    "redis": [
        "1:C {ts} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
        "1:C {ts} * Redis version=7.2.5, bits=64, commit=00000000, modified=0, pid=1, just started",
        "1:M {ts} * monotonic clock: POSIX clock_gettime",
        "1:M {ts} * Running mode=standalone, port=6379.",
        "1:M {ts} * Server initialized",
        "1:M {ts} * Ready to accept connections tcp",
    ],
    "mysql": [
        "{ts} 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.39) starting as process 1",
        "{ts} 1 [System] [MY-013576] [InnoDB] InnoDB initialization has started.",
        "{ts} 1 [System] [MY-013577] [InnoDB] InnoDB initialization has ended.",
        "{ts} 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '8.0.39'  "
        "socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.",
    ],
    "tomcat": [
        "{ts} INFO [main] org.apache.catalina.startup.VersionLoggerListener.log Server version name:   "
        "Apache Tomcat/9.0.93",
        "{ts} INFO [main] org.apache.coyote.AbstractProtocol.start "
        'Starting ProtocolHandler ["http-nio-8080"]',
        "{ts} INFO [main] org.apache.catalina.startup.Catalina.start Server startup in [612] milliseconds",
    ],
}


def _started_at(pod: dict, container: str) -> datetime | None:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == container:
            started = ((status.get("state") or {}).get("running") or {}).get("startedAt")
            return datetime.fromisoformat(started.replace("Z", "+00:00")) if started else None
    return None


def _waiting(pod: dict, container: str) -> dict | None:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == container:
            return (status.get("state") or {}).get("waiting")
    return None


def _container(pod: dict, container: str | None) -> str:
    names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
    name = pod["metadata"]["name"]
    if container is None:
        if len(names) == 1:
            return names[0]
        raise ApiError(
            400,
            "BadRequest",
            f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]",
        )
    if container not in names:
        raise ApiError(400, "BadRequest", f"container {container} is not valid for pod {name}")
    return container


def _lines(pod: dict, container: str) -> list[tuple[datetime, str]]:
    started = _started_at(pod, container)
    if started is None:
        waiting = _waiting(pod, container) or {}
        reason = waiting.get("reason", "ContainerCreating")
        # kubelet's validateContainerLogStatus words for the two pull failures.
        detail = {
            "ErrImagePull": "image can't be pulled",
            "ImagePullBackOff": "trying and failing to pull image",
        }.get(reason, reason)
        raise ApiError(
            400,
            "BadRequest",
            f'container "{container}" in pod "{pod["metadata"]["name"]}" is waiting to start: {detail}',
        )
    spec = next(c for c in pod["spec"]["containers"] if c["name"] == container)
    image = catalog.lookup(spec.get("image", ""))
    profile = _PROFILES.get(image.logs if image else "", [])
    ip = (pod.get("status") or {}).get("podIP", "")
    out = []
    for index, template in enumerate(profile):
        moment = started + timedelta(milliseconds=37 * index)
        out.append((moment, template.format(ts=moment.strftime("%Y/%m/%d %H:%M:%S"), ip=ip)))
    return out


def read_log(
    cluster: Cluster,
    namespace: str,
    name: str,
    container: str | None = None,
    tail_lines: int | None = None,
    timestamps: bool = False,
) -> str:
    """The text of GET …/pods/<name>/log; raises ApiError (404, or 400 while the container waits)."""
    pod = api.get(cluster, "Pod", namespace, name)
    lines = _lines(pod, _container(pod, container))
    if tail_lines is not None:
        lines = lines[-tail_lines:] if tail_lines > 0 else []
    if timestamps:
        return "".join(f"{moment.strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {text}\n" for moment, text in lines)
    return "".join(f"{text}\n" for _, text in lines)


async def follow_log(
    cluster: Cluster, namespace: str, name: str, container: str | None = None, poll_seconds: float = 1.0
) -> AsyncIterator[str]:
    """`kubectl logs -f`: the log so far, then nothing more until the pod goes away (its uid changes)."""
    from channels.db import database_sync_to_async

    text = await database_sync_to_async(read_log)(cluster, namespace, name, container)
    uid = (await database_sync_to_async(api.get)(cluster, "Pod", namespace, name))["metadata"].get("uid")
    if text:
        yield text
    while True:
        await asyncio.sleep(poll_seconds)
        try:
            pod = await database_sync_to_async(api.get)(cluster, "Pod", namespace, name)
        except ApiError:
            return
        if pod["metadata"].get("uid") != uid:
            return

"""pods/<name>/log: a container's log as text/plain, read from what its kubelet stored.

The query is kube-apiserver's PodLogOptions: container, previous, timestamps, tailLines,
sinceSeconds, sinceTime, limitBytes, follow (docs/containers.md).
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from cluster.api import componentlogs
from cluster.api.clusters import find_cluster
from cluster.api.http import error_response, flag
from cluster.api.paths import Target, resolve
from cluster.api.readers import reading
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.kinds.core import kubesystem
from cluster.kubelet import containerlogs
from cluster.kubelet.logs import LogOptions, open_log, render, still_running
from cluster.models import Cluster

FOLLOW_POLL_SECONDS = 0.5


def _integer(request: HttpRequest, name: str, minimum: int) -> int | None:
    text = request.GET.get(name, "")
    if text == "":
        return None
    if not text.lstrip("-").isdigit():
        raise bad_request(f'{name}: Invalid value: "{text}": must be an integer')
    value = int(text)
    if value < minimum:
        words = "greater than or equal to 0" if minimum == 0 else "greater than 0"
        raise bad_request(f"{name}: Invalid value: {value}: must be {words}")
    return value


def _since_time(request: HttpRequest) -> datetime | None:
    text = request.GET.get("sinceTime", "")
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise bad_request(f'sinceTime: Invalid value: "{text}": must be an RFC 3339 time') from None


def options_of(request: HttpRequest) -> LogOptions:
    seconds = _integer(request, "sinceSeconds", 1)
    since_time = _since_time(request)
    if seconds is not None and since_time is not None:
        raise bad_request("at most one of `sinceTime` or `sinceSeconds` may be specified")
    return LogOptions(
        container=request.GET.get("container", "") or None,
        tail_lines=_integer(request, "tailLines", 0),
        timestamps=flag(request, "timestamps"),
        previous=flag(request, "previous"),
        since_seconds=seconds,
        since_time=since_time,
        limit_bytes=_integer(request, "limitBytes", 1),
    )


def _read(cluster: Cluster, target: Target, options: LogOptions) -> tuple[dict, str, int, list[str]]:
    """(the pod, the run's container id, its last log chunk's id, its lines)."""
    pod, _container, container_id = open_log(cluster, target.namespace, target.name, options)
    return pod, container_id, *containerlogs.read_after(cluster, container_id, 0)


def log_response(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    options = options_of(request)
    pod = api.get(cluster, "Pod", target.namespace, target.name)
    if kubesystem.served("Pod", pod):  # no kubelet of KubeSim runs it: its component's own lines
        text = componentlogs.log_text(cluster, pod, options.tail_lines, options.timestamps)
        return HttpResponse(text, content_type="text/plain")
    lines = _read(cluster, target, options)[3]
    return HttpResponse(render(lines, options), content_type="text/plain")


def _prepare(request: HttpRequest, cluster_name: str, group: str, version: str, rest: str):
    target = resolve(group, version, rest)
    cluster = find_cluster(request, cluster_name, "get", target)
    options = options_of(request)
    pod, container_id, last, lines = _read(cluster, target, options)
    return cluster, target, options, pod, container_id, (last, lines)


async def _follow(cluster: Cluster, target: Target, options: LogOptions, pod: dict, container_id: str, first):
    """What is there, then each new line as the container prints it, until that run ends (or the
    pod goes), as the kubelet's follow does. Each poll reads only the chunks stored since the
    last (a class following a chatty pod does not re-read its whole log twice a second)."""
    last, lines = first
    yield render(lines, options).encode()
    read = reading(containerlogs.read_after)
    running = reading(still_running)
    uid = pod["metadata"].get("uid", "")
    every = LogOptions(timestamps=options.timestamps)
    while True:
        alive = await running(cluster, target.namespace, target.name, uid, container_id)
        last, lines = await read(cluster, container_id, last)
        if lines:
            yield render(lines, every).encode()
        if not alive:
            return
        await asyncio.sleep(FOLLOW_POLL_SECONDS)


def follow_response(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    try:
        found, target, options, pod, container_id, first = _prepare(request, cluster, group, version, rest)
    except ApiError as err:
        return error_response(err)
    stream = _follow(found, target, options, pod, container_id, first)
    return StreamingHttpResponse(stream, content_type="text/plain")

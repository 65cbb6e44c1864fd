"""pods/<name>/log: container logs as text/plain, from the simulated kubelet's runtime."""

from __future__ import annotations

import asyncio

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from cluster.api import componentlogs
from cluster.api.clusters import find_cluster
from cluster.api.http import error_response, flag
from cluster.api.paths import Target, resolve
from cluster.api.readers import reading
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.kinds.core import kubesystem
from cluster.kubelet.logs import read_log
from cluster.models import Cluster

FOLLOW_POLL_SECONDS = 0.5


def _container(pod: dict, wanted: str) -> str:
    names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
    name = pod["metadata"]["name"]
    if wanted:
        if wanted not in names:
            raise bad_request(f"container {wanted} is not valid for pod {name}")
        return wanted
    if len(names) != 1:
        raise bad_request(
            f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]"
        )
    return names[0]


def _read(cluster: Cluster, target: Target, request: HttpRequest, tail: int | None) -> str:
    pod = api.get(cluster, "Pod", target.namespace, target.name)
    container = _container(pod, request.GET.get("container", ""))
    if kubesystem.served("Pod", pod):  # no kubelet of KubeSim runs it: its component's own lines
        return componentlogs.log_text(cluster, pod, tail, flag(request, "timestamps"))
    return read_log(cluster, target.namespace, target.name, container, tail, flag(request, "timestamps"))


def _tail(request: HttpRequest) -> int | None:
    text = request.GET.get("tailLines", "")
    if text == "":
        return None
    if not text.lstrip("-").isdigit():
        raise bad_request(f'tailLines: Invalid value: "{text}": must be an integer')
    return max(0, int(text))


def log_response(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    return HttpResponse(_read(cluster, target, request, _tail(request)), content_type="text/plain")


def _prepare(request: HttpRequest, cluster_name: str, group: str, version: str, rest: str):
    target = resolve(group, version, rest)
    cluster = find_cluster(request, cluster_name, "get", target)
    first = _read(cluster, target, request, _tail(request))
    return cluster, target, first


def _still_there(cluster: Cluster, target: Target, request: HttpRequest) -> str | None:
    try:
        return _read(cluster, target, request, None)
    except ApiError:
        return None


async def _follow(cluster: Cluster, target: Target, request: HttpRequest, first: str):
    """Stream what is there, then each new line as the container writes it, until the pod is gone."""
    yield first.encode()
    # Read-only, off the request's thread (whose connection was closed when the stream began).
    read = reading(_still_there)
    seen = await read(cluster, target, request)
    while seen is not None:
        await asyncio.sleep(FOLLOW_POLL_SECONDS)
        text = await read(cluster, target, request)
        if text is None:
            return
        if text.startswith(seen) and len(text) > len(seen):
            yield text[len(seen) :].encode()
        seen = text


def follow_response(request: HttpRequest, cluster: str, group: str, version: str, rest: str) -> HttpResponse:
    try:
        found, target, first = _prepare(request, cluster, group, version, rest)
    except ApiError as err:
        return error_response(err)
    return StreamingHttpResponse(_follow(found, target, request, first), content_type="text/plain")

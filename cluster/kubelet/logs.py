"""`kubectl logs`: a container's log as its kubelet serves it.

The API server picks the container (`container_name`, upstream's LogLocation: any container,
init container or ephemeral container of the pod), the kubelet picks the run of it
(`container_id_for`, upstream's validateContainerLogStatus: the running one, else the last
terminated one; `--previous` the last terminated one) and reads its lines
(`cluster/kubelet/containerlogs.py`), then `--since-time`/`--since`, `--tail` and `--limit-bytes`
apply in that order, and `--timestamps` keeps each line's time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.kubelet import containerlogs
from cluster.kubelet.containerlogs import TIMESTAMP_LENGTH
from cluster.models import Cluster
from k8s import clock


@dataclass(frozen=True, slots=True)
class LogOptions:
    container: str | None = None
    tail_lines: int | None = None
    timestamps: bool = False
    previous: bool = False
    since_seconds: int | None = None
    since_time: datetime | None = None
    limit_bytes: int | None = None


def _names(containers: list[dict]) -> list[str]:
    return [c.get("name", "") for c in containers or []]


def container_name(pod: dict, wanted: str | None) -> str:
    """The API server's choice of container (400 BadRequest with its words)."""
    spec = pod.get("spec") or {}
    name = pod["metadata"]["name"]
    containers = _names(spec.get("containers"))
    inits = _names(spec.get("initContainers"))
    ephemeral = _names(spec.get("ephemeralContainers"))
    if not wanted:
        if len(containers) == 1:
            return containers[0]
        if not containers:
            raise bad_request(f"a container name must be specified for pod {name}")
        names = " ".join(containers)
        message = f"a container name must be specified for pod {name}, choose one of: [{names}]"
        if inits:
            message += f" or one of the init containers: [{' '.join(inits)}]"
        raise bad_request(message)
    if wanted not in (*containers, *inits, *ephemeral):
        raise bad_request(f"container {wanted} is not valid for pod {name}")
    return wanted


def _status_of(pod: dict, container: str) -> dict | None:
    status = pod.get("status") or {}
    for field in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(field) or []:
            if entry.get("name") == container:
                return entry
    return None


def container_id_for(pod: dict, container: str, previous: bool) -> str:
    """The kubelet's validateContainerLogStatus: which run's log, or its error (400)."""
    name = pod["metadata"]["name"]
    status = _status_of(pod, container)
    if status is None:
        raise bad_request(f'container "{container}" in pod "{name}" is not available')
    state = status.get("state") or {}
    last = (status.get("lastState") or {}).get("terminated")
    if previous:
        if not last or not last.get("containerID"):
            raise bad_request(f'previous terminated container "{container}" in pod "{name}" not found')
        return last["containerID"]
    if "running" in state:
        return status.get("containerID", "")
    if "terminated" in state:
        found = state["terminated"].get("containerID") or (last or {}).get("containerID")
        if not found:
            raise bad_request(f'container "{container}" in pod "{name}" is terminated')
        return found
    if last is not None:
        if not last.get("containerID"):
            raise bad_request(f'container "{container}" in pod "{name}" is terminated')
        return last["containerID"]
    reason = (state.get("waiting") or {}).get("reason") or "ContainerCreating"
    if reason == "ErrImagePull":
        detail = "image can't be pulled"
    elif reason == "ImagePullBackOff":
        detail = "trying and failing to pull image"
    else:
        detail = reason
    raise bad_request(f'container "{container}" in pod "{name}" is waiting to start: {detail}')


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"


def render(lines: list[str], options: LogOptions) -> str:
    """The stored lines after --since, --tail, --limit-bytes and --timestamps."""
    since = None
    if options.since_time is not None:
        since = _stamp(options.since_time)
    elif options.since_seconds is not None:
        since = _stamp(clock.now() - timedelta(seconds=options.since_seconds))
    if since is not None:
        lines = [line for line in lines if line[:TIMESTAMP_LENGTH] >= since]
    if options.tail_lines is not None:
        lines = lines[-options.tail_lines :] if options.tail_lines > 0 else []
    if not options.timestamps:
        lines = [line[TIMESTAMP_LENGTH + 1 :] for line in lines]
    text = "".join(lines)
    if options.limit_bytes is not None:
        text = text.encode()[: options.limit_bytes].decode("utf-8", "ignore")
    return text


def open_log(cluster: Cluster, namespace: str, name: str, options: LogOptions) -> tuple[dict, str, str]:
    """(the pod, the container, the run's container id), or the ApiError kubectl prints."""
    pod = api.get(cluster, "Pod", namespace, name)
    container = container_name(pod, options.container)
    return pod, container, container_id_for(pod, container, options.previous)


def read_log(
    cluster: Cluster,
    namespace: str,
    name: str,
    container: str | None = None,
    tail_lines: int | None = None,
    timestamps: bool = False,
    **more,
) -> str:
    """The text of GET …/pods/<name>/log; raises ApiError (404, or 400 as the kubelet answers)."""
    options = LogOptions(container, tail_lines, timestamps, **more)
    _pod, _container, container_id = open_log(cluster, namespace, name, options)
    return render(containerlogs.read_lines(cluster, container_id), options)


def still_running(cluster: Cluster, namespace: str, name: str, uid: str, container_id: str) -> bool:
    """Is the followed run still the pod's running one? (`logs -f` ends when it exits.)"""
    try:
        pod = api.get(cluster, "Pod", namespace, name)
    except ApiError:
        return False
    if pod["metadata"].get("uid") != uid:
        return False
    status = pod.get("status") or {}
    for field in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(field) or []:
            if entry.get("containerID") == container_id and "running" in (entry.get("state") or {}):
                return True
    return False

"""Build a container's context from its pod as stored by the API server (one read per session)."""

from __future__ import annotations

import base64

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import kind_info
from cluster.models import Cluster
from cluster.shell.context import ContainerContext
from cluster.shell.profiles import profile_for

_FIELD_REFS = {
    "metadata.name": lambda pod: pod["metadata"]["name"],
    "metadata.namespace": lambda pod: pod["metadata"].get("namespace", "default"),
    "metadata.uid": lambda pod: pod["metadata"].get("uid", ""),
    "spec.nodeName": lambda pod: (pod.get("spec") or {}).get("nodeName", ""),
    "spec.serviceAccountName": lambda pod: (pod.get("spec") or {}).get("serviceAccountName", "default"),
    "status.podIP": lambda pod: (pod.get("status") or {}).get("podIP", ""),
    "status.hostIP": lambda pod: (pod.get("status") or {}).get("hostIP", ""),
}


def _key_ref(cluster: Cluster, namespace: str, kind: str, ref: dict) -> str | None:
    """A key of a ConfigMap or Secret, when this API server serves the kind and the object exists."""
    if kind_info(kind) is None:
        return None
    try:
        obj = api.get(cluster, kind, namespace, ref.get("name", ""))
    except ApiError:
        return None
    data = obj.get("data") or {}
    value = data.get(ref.get("key", ""))
    if value is not None and kind == "Secret":
        return base64.b64decode(value).decode("utf-8", "replace")
    return value


def spec_env(cluster: Cluster, pod: dict, container: dict) -> list[tuple[str, str]]:
    """The container's env as the kubelet resolves it ($(VAR) references left as written)."""
    namespace = pod["metadata"].get("namespace", "default")
    out: list[tuple[str, str]] = []
    for entry in container.get("env") or []:
        name = entry.get("name")
        if not name:
            continue
        if "value" in entry or "valueFrom" not in entry:
            out.append((name, str(entry.get("value", ""))))
            continue
        source = entry.get("valueFrom") or {}
        value: str | None = None
        if "fieldRef" in source:
            getter = _FIELD_REFS.get((source["fieldRef"] or {}).get("fieldPath", ""))
            value = getter(pod) if getter else None
        elif "configMapKeyRef" in source:
            value = _key_ref(cluster, namespace, "ConfigMap", source["configMapKeyRef"] or {})
        elif "secretKeyRef" in source:
            value = _key_ref(cluster, namespace, "Secret", source["secretKeyRef"] or {})
        if value is not None:
            out.append((name, value))
    return out


def container_status(pod: dict, name: str) -> dict:
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == name:
            return status
    return {}


def running_container_id(pod: dict, name: str) -> str | None:
    """The container's id while it runs (the runtime finds no other container to exec in)."""
    status = container_status(pod, name)
    if not (status.get("state") or {}).get("running"):
        return None
    return status.get("containerID") or None


def context_for(cluster: Cluster, pod: dict, container_name: str, tty: bool) -> ContainerContext:
    container = next(c for c in pod["spec"]["containers"] if c["name"] == container_name)
    image = container.get("image", "")
    status = pod.get("status") or {}
    cstatus = container_status(pod, container_name)
    return ContainerContext(
        cluster=cluster.name,
        namespace=pod["metadata"].get("namespace", "default"),
        pod=pod["metadata"]["name"],
        container=container_name,
        image=image,
        profile=profile_for(image),
        container_id=cstatus.get("containerID") or f"{pod['metadata'].get('uid', '')}/{container_name}",
        pod_ip=status.get("podIP", ""),
        node=(pod.get("spec") or {}).get("nodeName", ""),
        started_at=((cstatus.get("state") or {}).get("running") or {}).get("startedAt", ""),
        spec_env=spec_env(cluster, pod, container),
        command=[*(container.get("command") or []), *(container.get("args") or [])],
        tty=tty,
        find_pod_by_ip=lambda ip: peers_at(cluster, ip),
    )


def peers_at(cluster: Cluster, ip: str) -> list[ContainerContext]:
    """The running containers of the pod with this IP (what a connection to it reaches)."""
    pods, _revision = api.list_objects(cluster, "Pod", field_selector=f"status.podIP={ip}")
    out = []
    for pod in pods:
        for container in (pod.get("spec") or {}).get("containers") or []:
            if running_container_id(pod, container["name"]):
                out.append(context_for(cluster, pod, container["name"], tty=False))
    return out

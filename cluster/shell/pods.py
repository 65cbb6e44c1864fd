"""Build a container's context from its pod as stored by the API server (one read per session)."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.auth import satokens
from cluster.kubelet import configsources
from cluster.models import Cluster
from cluster.shell import limits, services
from cluster.shell.context import ContainerContext
from cluster.shell.profiles import Process, profile_for
from cluster.shell.volumes import persistent_mounts

_FIELD_REFS = {
    "metadata.name": lambda pod: pod["metadata"]["name"],
    "metadata.namespace": lambda pod: pod["metadata"].get("namespace", "default"),
    "metadata.uid": lambda pod: pod["metadata"].get("uid", ""),
    "spec.nodeName": lambda pod: (pod.get("spec") or {}).get("nodeName", ""),
    "spec.serviceAccountName": lambda pod: (pod.get("spec") or {}).get("serviceAccountName", "default"),
    "status.podIP": lambda pod: (pod.get("status") or {}).get("podIP", ""),
    "status.hostIP": lambda pod: (pod.get("status") or {}).get("hostIP", ""),
}


def lookup_for(cluster: Cluster):
    """Read ConfigMaps, Secrets and the claims' volumes through the API server, as the kubelet does."""

    def lookup(kind: str, namespace: str, name: str) -> dict | None:
        try:
            return api.get(cluster, kind, namespace, name)
        except ApiError:
            return None

    return lookup


def token_for(cluster: Cluster, pod: dict):
    """What the kubelet asks the API server for a projected token: a TokenRequest bound to the pod,
    for its ServiceAccount (an empty file when the ServiceAccount is gone)."""

    def token(source: dict) -> str:
        meta = pod["metadata"]
        account = lookup_for(cluster)(
            "ServiceAccount",
            meta.get("namespace", "default"),
            pod["spec"].get("serviceAccountName") or "default",
        )
        if account is None:
            return ""
        audiences = [source["audience"]] if source.get("audience") else list(satokens.API_AUDIENCES)
        bound = {"kind": "Pod", "name": meta["name"], "uid": meta.get("uid", "")}
        seconds = source.get("expirationSeconds") or 3600
        return satokens.issue(cluster, account, audiences, int(seconds), bound)[0]

    return token


def spec_env(cluster: Cluster, pod: dict, container: dict) -> list[tuple[str, str]]:
    """The container's env as the kubelet resolves it ($(VAR) references left as written)."""

    def field_value(ref: dict) -> str | None:
        getter = _FIELD_REFS.get(ref.get("fieldPath", ""))
        return getter(pod) if getter else None

    try:
        return configsources.container_env(pod, container, lookup_for(cluster), field_value)
    except configsources.ConfigError:
        return []  # the container never started: the kubelet could not resolve its env


def container_status(pod: dict, name: str) -> dict:
    status = pod.get("status") or {}
    for field in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for entry in status.get(field) or []:
            if entry.get("name") == name:
                return entry
    return {}


def running_container_id(pod: dict, name: str) -> str | None:
    """The container's id while it runs (the runtime finds no other container to exec in)."""
    status = container_status(pod, name)
    if not (status.get("state") or {}).get("running"):
        return None
    return status.get("containerID") or None


def _target_processes(every: list[dict], container: dict) -> tuple:
    """The processes of an ephemeral container's target, whose process namespace it joins."""
    target = next((c for c in every if c.get("name") == container.get("targetContainerName")), None)
    if target is None or target is container:
        return ()
    command = [*(target.get("command") or []), *(target.get("args") or [])]
    if command:
        return (Process(1, "root", " ".join(str(word) for word in command)),)
    return profile_for(target.get("image", "")).processes


def context_for(
    cluster: Cluster, pod: dict, container_name: str, tty: bool, with_services: bool = True
) -> ContainerContext:
    spec = pod["spec"]
    every = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    every += spec.get("ephemeralContainers") or []
    container = next(c for c in every if c["name"] == container_name)
    view = services.load(cluster) if with_services else None
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
        volumes=configsources.container_files(pod, container, lookup_for(cluster), token_for(cluster, pod)),
        persistent=persistent_mounts(pod, container, lookup_for(cluster)),
        command=[*(container.get("command") or []), *(container.get("args") or [])],
        tty=tty,
        host_network=bool(spec.get("hostNetwork")),
        shared_with=_target_processes(every, container),
        memory_limit=limits.container_limit(container, "memory"),
        storage_limit=limits.container_limit(container, "ephemeral-storage"),
        find_pod_by_ip=lambda ip: peers_at(cluster, ip),
        services=view,
        service_env=_links(view, pod, cstatus),
    )


def _links(view, pod: dict, cstatus: dict) -> list[tuple[str, str]]:
    if view is None or (pod.get("spec") or {}).get("enableServiceLinks") is False:
        return []
    started = ((cstatus.get("state") or {}).get("running") or {}).get("startedAt", "")
    return services.link_env(view, pod["metadata"].get("namespace", "default"), started)


def peers_at(cluster: Cluster, ip: str) -> list[ContainerContext]:
    """The running containers of the pod with this IP (what a connection to it reaches)."""
    pods, _revision = api.list_objects(cluster, "Pod", field_selector=f"status.podIP={ip}")
    out = []
    for pod in pods:
        for container in (pod.get("spec") or {}).get("containers") or []:
            if running_container_id(pod, container["name"]):
                out.append(context_for(cluster, pod, container["name"], tty=False, with_services=False))
    return out

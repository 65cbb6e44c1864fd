"""A container's writable layer: what `touch`, `mkdir`, `rm` and `>` change.

It lives as long as the container (keyed by its containerID): a restart gets a new container id
and an empty layer, as with Docker. Stored as a ContainerLayer row, so every process serving an
exec into the container sees the same files; loaded before a command line, saved after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.apiserver import service as api
from cluster.apiserver.kinds import kind_info
from cluster.models import Cluster, ContainerLayer

# Layers a cluster keeps: the oldest go first (their containers are long gone).
MAX_LAYERS_PER_CLUSTER = 500
# A PersistentVolume's files are a layer too, keyed by this prefix and the volume's uid
# (cluster/shell/volumes.py): kept while the volume exists.
VOLUME_PREFIX = "pv:"
# A pod's emptyDir volumes: `emptydir:<pod uid>/<volume name>`, kept while the pod exists.
EMPTY_DIR_PREFIX = "emptydir:"


@dataclass(slots=True)
class Overlay:
    files: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)  # whiteouts over the image's paths
    kv: dict[str, str] = field(default_factory=dict)  # a redis container's keys (its memory)

    def size(self) -> int:
        """The bytes its files hold (what counts against the container's ephemeral storage)."""
        return sum(map(len, self.files.values()))

    def snapshot(self) -> tuple:
        return (dict(self.files), set(self.dirs), set(self.deleted), dict(self.kv))


def load(cluster_name: str, container_id: str) -> Overlay:
    row = ContainerLayer.objects.filter(cluster__name=cluster_name, container_id=container_id).first()
    if row is None:
        return Overlay()
    return Overlay(dict(row.files), set(row.dirs), set(row.deleted), dict(row.kv))


def save(cluster_name: str, container_id: str, layer: Overlay) -> None:
    cluster = Cluster.objects.only("pk").filter(name=cluster_name).first()
    if cluster is None:  # removed with its containers
        return
    fields = {
        "files": layer.files,
        "dirs": sorted(layer.dirs),
        "deleted": sorted(layer.deleted),
        "kv": layer.kv,
    }
    _row, created = ContainerLayer.objects.update_or_create(
        cluster=cluster, container_id=container_id, defaults=fields
    )
    if created:
        stale = ContainerLayer.objects.filter(cluster=cluster).order_by("-updated_at")[
            MAX_LAYERS_PER_CLUSTER:
        ]
        ContainerLayer.objects.filter(pk__in=list(stale.values_list("pk", flat=True))).delete()
        sweep(cluster, keep=container_id)


def forget(cluster: Cluster, container_ids: list[str]) -> None:
    """The containers are gone (their pod removed): so are their writable layers."""
    if container_ids:
        ContainerLayer.objects.filter(cluster=cluster, container_id__in=container_ids).delete()


def container_ids(pod: dict) -> list[str]:
    """The layers the pod holds: its containers' (current and last terminated) and its emptyDir
    volumes'."""
    status = pod.get("status") or {}
    uid = (pod.get("metadata") or {}).get("uid") or ""
    found = [
        f"{EMPTY_DIR_PREFIX}{uid}/{volume.get('name')}"
        for volume in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(volume, dict) and "emptyDir" in volume
    ]
    for entry in [*(status.get("containerStatuses") or []), *(status.get("initContainerStatuses") or [])]:
        found.append(entry.get("containerID") or "")
        found.append(((entry.get("lastState") or {}).get("terminated") or {}).get("containerID") or "")
    return [found_id for found_id in found if found_id]


def sweep(cluster: Cluster, keep: str) -> None:
    """Remove the layers of containers no pod holds any more (deleted by force, restarted), and
    those of PersistentVolumes that are gone."""
    pods, _revision = api.list_objects(cluster, "Pod")
    live = {found for pod in pods for found in container_ids(pod)} | {keep}
    if kind_info("PersistentVolume") is not None:
        volumes, _revision = api.list_objects(cluster, "PersistentVolume")
        live |= {VOLUME_PREFIX + ((pv.get("metadata") or {}).get("uid") or "") for pv in volumes}
    ContainerLayer.objects.filter(cluster=cluster).exclude(container_id__in=live).delete()

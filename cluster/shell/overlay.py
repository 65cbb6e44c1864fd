"""A container's writable layer: what `touch`, `mkdir`, `rm` and `>` change.

It lives as long as the container (keyed by its containerID): a restart gets a new container id
and an empty layer, as with Docker. Stored as a ContainerLayer row, so every process serving an
exec into the container sees the same files; loaded before a command line, saved after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.models import Cluster, ContainerLayer

# Layers a cluster keeps: the oldest go first (their containers are long gone).
MAX_LAYERS_PER_CLUSTER = 500


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

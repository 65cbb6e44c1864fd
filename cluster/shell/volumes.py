"""Persistent volumes inside a container: what a container writes under the mountPath of a
PersistentVolumeClaim's volume is kept with the volume, not with the container, so the next pod
that mounts the same PersistentVolume finds it (docs/storage.md). Each volume's files are one
ContainerLayer row keyed `pv:<the volume's uid>`, paths relative to the volume's root. An
emptyDir volume is kept the same way, keyed `emptydir:<the pod's uid>/<the volume's name>`, for
as long as its pod (docs/containers.md)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from cluster.shell import overlay
from cluster.shell.overlay import Overlay

KEY_PREFIX = overlay.VOLUME_PREFIX
EMPTY_DIR_PREFIX = overlay.EMPTY_DIR_PREFIX


@dataclass(frozen=True, slots=True)
class Mount:
    path: str  # the mountPath inside the container
    key: str  # the volume's layer: `pv:<uid>`
    sub_path: str = ""  # the volumeMount's subPath inside the volume


def persistent_mounts(pod: dict, container: dict, lookup) -> tuple[Mount, ...]:
    """The container's mounts of bound PersistentVolumeClaims (`lookup(kind, namespace, name)`)
    and of the pod's emptyDir volumes."""
    namespace = (pod.get("metadata") or {}).get("namespace", "default")
    claims = {
        volume.get("name"): (volume.get("persistentVolumeClaim") or {}).get("claimName")
        for volume in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(volume, dict) and isinstance(volume.get("persistentVolumeClaim"), dict)
    }
    # An emptyDir lives as long as its pod, shared by the pod's containers: a layer of its own.
    uid = (pod.get("metadata") or {}).get("uid") or ""
    empty = {
        volume.get("name")
        for volume in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(volume, dict) and "emptyDir" in volume
    }
    mounts = []
    for mount in container.get("volumeMounts") or []:
        if mount.get("name") in empty and mount.get("mountPath"):
            path = "/" + posixpath.normpath(mount["mountPath"]).lstrip("/")
            key = f"{EMPTY_DIR_PREFIX}{uid}/{mount['name']}"
            mounts.append(Mount(path, key, (mount.get("subPath") or "").strip("/")))
            continue
        claim_name = claims.get(mount.get("name"))
        if not claim_name or not mount.get("mountPath"):
            continue
        claim = lookup("PersistentVolumeClaim", namespace, claim_name)
        volume_name = ((claim or {}).get("spec") or {}).get("volumeName")
        pv = lookup("PersistentVolume", None, volume_name) if volume_name else None
        if pv is None:
            continue
        uid = (pv.get("metadata") or {}).get("uid") or volume_name
        path = "/" + posixpath.normpath(mount["mountPath"]).lstrip("/")  # normpath keeps a leading //
        mounts.append(Mount(path, KEY_PREFIX + uid, (mount.get("subPath") or "").strip("/")))
    return tuple(mounts)


def _inside(mount: Mount, relative: str) -> str | None:
    """The container path of a volume path, or None when it is outside the mount's subPath."""
    if mount.sub_path:
        if relative != mount.sub_path and not relative.startswith(mount.sub_path + "/"):
            return None
        relative = relative[len(mount.sub_path) :].lstrip("/")
    return posixpath.join(mount.path, relative) if relative else mount.path


def under(mounts: tuple[Mount, ...], path: str) -> Mount | None:
    """The (innermost) mount that holds `path`."""
    found = None
    for mount in mounts:
        inside = path == mount.path or path.startswith(mount.path.rstrip("/") + "/")
        if inside and (found is None or len(mount.path) > len(found.path)):
            found = mount
    return found


def merge_into(layer: Overlay, cluster: str, mounts: tuple[Mount, ...]) -> None:
    """Lay each volume's files over the container's layer at its mountPath."""
    for mount in mounts:
        volume = overlay.load(cluster, mount.key)
        for relative, content in volume.files.items():
            path = _inside(mount, relative)
            if path is not None and path != mount.path:
                layer.files[path] = content
        for relative in volume.dirs:
            path = _inside(mount, relative)
            if path is not None and path != mount.path:
                layer.dirs.add(path)


def split_and_save(layer: Overlay, cluster: str, container_id: str, mounts: tuple[Mount, ...]) -> None:
    """Save what lies under a volume's mountPath with the volume, the rest with the container."""
    own = Overlay(dict(layer.files), set(layer.dirs), set(layer.deleted), dict(layer.kv))
    for mount in mounts:
        volume = overlay.load(cluster, mount.key)
        prefix = f"{mount.sub_path}/" if mount.sub_path else ""
        # This mount's view of the volume is replaced by what the container now holds there.
        volume.files = {k: v for k, v in volume.files.items() if _inside(mount, k) is None}
        volume.dirs = {d for d in volume.dirs if _inside(mount, d) is None}
        for path in [p for p in own.files if under(mounts, p) is mount]:
            volume.files[prefix + path[len(mount.path) :].lstrip("/")] = own.files.pop(path)
        for path in [p for p in own.dirs if under(mounts, p) is mount and p != mount.path]:
            own.dirs.discard(path)
            volume.dirs.add(prefix + path[len(mount.path) :].lstrip("/"))
        overlay.save(cluster, mount.key, volume)
    overlay.save(cluster, container_id, own)

"""The DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/setdefault,
v1.33): a new PersistentVolumeClaim whose `spec.storageClassName` is unset gets the default
class's name. An empty string is a choice (no class) and is kept. Several default classes: the
newest wins, then the name (GetDefaultClass)."""

from __future__ import annotations

from cluster.apiserver import reads
from cluster.apiserver.admission import chain
from k8s.volumes import BETA_CLASS_ANNOTATION, is_default_class


def default_class_name(cluster) -> str | None:
    classes, _ = reads.list_objects(cluster, "StorageClass", None)
    defaults = [sc for sc in classes if is_default_class(sc)]
    if not defaults:
        return None
    newest = max(sc["metadata"].get("creationTimestamp") or "" for sc in defaults)
    return min(
        sc["metadata"]["name"] for sc in defaults if (sc["metadata"].get("creationTimestamp") or "") == newest
    )


def admit_claim(cluster, kind: str, body: dict) -> None:
    if kind != "PersistentVolumeClaim" or not isinstance(body.get("spec"), dict):
        return
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    if body["spec"].get("storageClassName") is not None or BETA_CLASS_ANNOTATION in annotations:
        return
    name = default_class_name(cluster)
    if name is not None:
        body["spec"]["storageClassName"] = name


def install() -> None:
    chain.register_mutating(admit_claim)

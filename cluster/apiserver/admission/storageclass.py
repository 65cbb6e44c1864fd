"""Storage admission plugins, v1.33:
- DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a new
  PersistentVolumeClaim whose `spec.storageClassName` is unset gets the default class's name. An
  empty string is a choice (no class) and is kept. Several default classes: the newest wins,
  then the name (GetDefaultClass).
- PersistentVolumeClaimResize (plugin/pkg/admission/storage/persistentvolume/resize): a claim's
  storage request may grow only when it is Bound and its class allows volume expansion."""

from __future__ import annotations

from cluster.apiserver import reads
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import ApiError, forbidden
from k8s.volumes import BETA_CLASS_ANNOTATION, claim_class, is_default_class, requested


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


def admit_resize(cluster, verb: str, kind: str, body: dict, actor) -> None:
    if kind != "PersistentVolumeClaim" or verb not in ("update", "patch"):
        return
    meta = body.get("metadata") or {}
    try:
        old = reads.get(cluster, kind, meta.get("namespace"), meta.get("name", ""))
    except ApiError:
        return
    if requested(body) <= requested(old):
        return
    if (old.get("status") or {}).get("phase") != "Bound":
        raise forbidden(
            "persistentvolumeclaims", meta["name"], "Only bound persistent volume claims can be expanded"
        )
    name, old_name = claim_class(body), claim_class(old)
    sc = None
    if name and name == old_name:
        try:
            sc = reads.get(cluster, "StorageClass", None, name)
        except ApiError:
            sc = None
    if sc is None or not sc.get("allowVolumeExpansion"):
        raise forbidden(
            "persistentvolumeclaims",
            meta["name"],
            "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc "
            "must support resize",
        )


def install() -> None:
    chain.register_mutating(admit_claim)
    chain.register(admit_resize)

"""PersistentVolumeClaims (core/v1, `persistentvolumeclaims`, short name `pvc`), v1.33: upstream
`pkg/registry/core/persistentvolumeclaim`, SetDefaults_PersistentVolumeClaim, the parts of
ValidatePersistentVolumeClaim a student meets, printPersistentVolumeClaim and
describePersistentVolumeClaim.

The DefaultStorageClass admission plugin (`cluster/apiserver/admission/storageclass.py`) gives a
claim that names no class the default one; the PV controller binds it.
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kinds.core.persistentvolume import status_line, validate_access_modes
from cluster.kubeapi.describe import events_of, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.quantity import format_quantity, is_valid_quantity
from k8s.volumes import access_modes_text, claim_class, requested, size

IMMUTABLE_SPEC = (
    "spec is immutable after creation except resources.requests and volumeAttributesClassName "
    "for bound claims"
)


def defaults(obj: dict) -> None:
    """SetDefaults_PersistentVolumeClaim (and the strategy's status on create: Pending)."""
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.setdefault("volumeMode", "Filesystem")
    status = obj.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidatePersistentVolumeClaimSpec and, on update, the spec's immutability."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    validate_access_modes(
        errors, "spec.accessModes", spec.get("accessModes"), "at least 1 access mode is required"
    )
    requests = (
        (spec.get("resources") or {}).get("requests") if isinstance(spec.get("resources"), dict) else None
    )
    storage = (requests or {}).get("storage") if isinstance(requests, dict) else None
    if storage is None:
        errors.required("spec.resources[storage]")
    elif not is_valid_quantity(storage):
        errors.invalid("spec.resources[storage]", storage, "must be a valid quantity")
    if old is not None:
        _validate_update(errors, spec, old)


def _validate_update(errors: FieldErrors, spec: dict, old: dict) -> None:
    """ValidatePersistentVolumeClaimUpdate: a bound claim may change its storage request (not
    below its status.capacity, RecoverVolumeExpansionFailure being on in v1.33); the PV controller
    may set the volume of a claim that has none; the rest of the spec is immutable."""
    old_spec = old.get("spec") or {}
    bound = (old.get("status") or {}).get("phase") == "Bound"
    ignored = {"resources"} if bound else set()
    if not old_spec.get("volumeName"):
        ignored.add("volumeName")
    before = {k: v for k, v in old_spec.items() if k not in ignored}
    after = {k: v for k, v in spec.items() if k not in ignored}
    if before != after:
        errors.forbidden("spec", IMMUTABLE_SPEC)
    wanted, capacity = (
        requested({"spec": spec}),
        size(((old.get("status") or {}).get("capacity") or {}).get("storage")),
    )
    if bound and wanted < requested(old) and wanted <= capacity:
        errors.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity")


# -- kubectl get ----------------------------------------------------------------------------------
def _phase(obj: dict) -> str:
    if obj["metadata"].get("deletionTimestamp"):
        return "Terminating"
    return (obj.get("status") or {}).get("phase") or ""


def _bound(obj: dict) -> tuple[str, str]:
    """(capacity, access modes): shown only once the claim names its volume."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if not spec.get("volumeName"):
        return "", ""
    storage = (status.get("capacity") or {}).get("storage")
    return (format_quantity(storage) if storage is not None else "0"), access_modes_text(
        status.get("accessModes")
    )


def _row(obj: dict, now: datetime) -> list:
    spec = obj.get("spec") or {}
    capacity, modes = _bound(obj)
    return [
        obj["metadata"]["name"],
        _phase(obj),
        spec.get("volumeName") or "",
        capacity,
        modes,
        claim_class(obj),
        spec.get("volumeAttributesClassName") or "<unset>",
        age(obj, now),
        spec.get("volumeMode") or "<unset>",
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Status", "string", "", 0),
        ("Volume", "string", "", 0),
        ("Capacity", "string", "", 0),
        ("Access Modes", "string", "", 0),
        ("StorageClass", "string", "", 0),
        ("VolumeAttributesClass", "string", "", 0),
        AGE_COLUMN,
        ("VolumeMode", "string", "", 1),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def uses_claim(pod: dict, name: str) -> bool:
    return any(
        (volume.get("persistentVolumeClaim") or {}).get("claimName") == name
        for volume in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(volume, dict)
    )


def describe_lines(pvc: dict, pods: list[dict]) -> list[str]:
    meta, spec = pvc["metadata"], pvc.get("spec") or {}
    capacity, modes = _bound(pvc)
    lines = [
        f"Name:\t{meta['name']}",
        f"Namespace:\t{meta.get('namespace', '')}",
        f"StorageClass:\t{claim_class(pvc)}",
        status_line(pvc),
        f"Volume:\t{spec.get('volumeName', '')}",
        *labels_multiline("Labels", meta.get("labels")),
        *annotations_multiline("Annotations", meta.get("annotations")),
        f"Finalizers:\t[{' '.join(meta.get('finalizers') or [])}]",
        f"Capacity:\t{capacity}",
        f"Access Modes:\t{modes}",
    ]
    if spec.get("volumeMode"):
        lines.append(f"VolumeMode:\t{spec['volumeMode']}")
    names = sorted(pod["metadata"]["name"] for pod in pods)
    if not names:
        lines.append("Used By:\t<none>")
    else:
        lines += [f"Used By:\t{names[0]}", *(f"\t{name}" for name in names[1:])]
    return lines


def describe(read, namespace: str, name: str) -> str:
    pvc = read.get("PersistentVolumeClaim", namespace, name)
    pods = [pod for pod in read.list("Pod", namespace) if uses_claim(pod, name)]
    return with_events(describe_lines(pvc, pods), events_of(read, pvc), clock.now())


KIND = KindInfo(
    kind="PersistentVolumeClaim",
    plural="persistentvolumeclaims",
    singular="persistentvolumeclaim",
    group="",
    version="v1",
    namespaced=True,
    short_names=("pvc",),
    subresources=(status_subresource("PersistentVolumeClaim"),),
    reset_rank=45,  # after the pods that mount it, before the volumes it binds
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

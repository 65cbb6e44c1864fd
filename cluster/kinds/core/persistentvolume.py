"""PersistentVolumes (core/v1, `persistentvolumes`, short name `pv`, cluster-scoped), v1.33:
upstream `pkg/registry/core/persistentvolume`, SetDefaults_PersistentVolume, the parts of
ValidatePersistentVolume a student meets, printPersistentVolume and describePersistentVolume.

Phases are the PV controller's (`cluster/controllers/persistentvolume.py`): a new volume is
Pending until the controller makes it Available, then Bound, and Released once its claim is gone.
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kubeapi.describe import events_of, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.humanize import human_duration, parse_time
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.quantity import format_quantity, is_valid_quantity
from k8s.volumes import ACCESS_MODES, access_modes_text, volume_class

RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
SUPPORTED_MODES = tuple(sorted(mode for mode, _ in ACCESS_MODES))
# The volume sources KubeSim describes; any other source is stored and printed as `<unknown>`.
SOURCES = (
    "hostPath", "local", "nfs", "csi", "gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd",
    "cephfs", "fc", "azureDisk", "azureFile", "cinder", "flexVolume", "glusterfs", "portworxVolume",
    "quobyte", "scaleIO", "storageos", "vsphereVolume", "photonPersistentDisk", "flocker",
)  # fmt: skip


def defaults(obj: dict) -> None:
    """SetDefaults_PersistentVolume (and the strategy's status on create: Pending)."""
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        spec.setdefault("volumeMode", "Filesystem")
    status = obj.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"


def validate_access_modes(errors: FieldErrors, path: str, modes: object, required: str = "") -> None:
    if not modes:
        errors.required(path, required)
        return
    if not isinstance(modes, list):
        errors.type_error(path, modes, "a list of strings")
        return
    for mode in modes:
        if mode not in SUPPORTED_MODES:
            errors.not_supported(path, mode, SUPPORTED_MODES)
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        errors.forbidden(path, "may not use ReadWriteOncePod with other access modes")


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidatePersistentVolumeSpec: access modes, capacity, one volume source, reclaim policy."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    validate_access_modes(errors, "spec.accessModes", spec.get("accessModes"))
    capacity = spec.get("capacity")
    if not capacity:
        errors.required("spec.capacity")
    elif not isinstance(capacity, dict) or set(capacity) != {"storage"}:
        errors.not_supported(
            "spec.capacity", sorted(capacity) if isinstance(capacity, dict) else capacity, ("storage",)
        )
    elif not is_valid_quantity(capacity["storage"]):
        errors.invalid("spec.capacity[storage]", capacity["storage"], "must be a valid quantity")
    sources = [name for name in SOURCES if spec.get(name) is not None]
    if not sources:
        errors.required("spec", "must specify a volume type")
    elif len(sources) > 1:
        errors.forbidden(f"spec.{sources[1]}", "may not specify more than 1 volume type")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy not in RECLAIM_POLICIES:
        errors.not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES)
    if spec.get("local") is not None and not ((spec.get("nodeAffinity") or {}).get("required")):
        errors.required("spec.nodeAffinity", "Local volume requires node affinity")
    if old is not None and (old.get("spec") or {}).get("volumeMode") != spec.get("volumeMode"):
        errors.invalid("spec.volumeMode", spec.get("volumeMode"), "field is immutable")


# -- kubectl get ----------------------------------------------------------------------------------
def _claim_text(spec: dict) -> str:
    ref = spec.get("claimRef")
    return f"{ref.get('namespace') or ''}/{ref.get('name') or ''}" if isinstance(ref, dict) else ""


def _storage(resources: dict | None) -> str:
    value = (resources or {}).get("storage")
    return format_quantity(value) if value is not None else "0"


def _phase(obj: dict) -> str:
    if obj["metadata"].get("deletionTimestamp"):
        return "Terminating"
    return (obj.get("status") or {}).get("phase") or ""


def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        obj["metadata"]["name"],
        _storage(spec.get("capacity")),
        access_modes_text(spec.get("accessModes")),
        spec.get("persistentVolumeReclaimPolicy") or "",
        _phase(obj),
        _claim_text(spec),
        volume_class(obj),
        spec.get("volumeAttributesClassName") or "<unset>",
        status.get("reason") or "",
        age(obj, now),
        spec.get("volumeMode") or "<unset>",
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Capacity", "string", "", 0),
        ("Access Modes", "string", "", 0),
        ("Reclaim Policy", "string", "", 0),
        ("Status", "string", "", 0),
        ("Claim", "string", "", 0),
        ("StorageClass", "string", "", 0),
        ("VolumeAttributesClass", "string", "", 0),
        ("Reason", "string", "", 0),
        AGE_COLUMN,
        ("VolumeMode", "string", "", 1),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def node_affinity_lines(affinity: dict | None) -> list[str]:
    """printVolumeNodeAffinity."""
    required = (affinity or {}).get("required")
    if not affinity or required is None:
        return ["Node Affinity:\t<none>"]
    terms = required.get("nodeSelectorTerms") or []
    lines = ["Node Affinity:\t", "  Required Terms:\t" + ("<none>" if not terms else "")]
    for index, term in enumerate(terms):
        expressions = term.get("matchExpressions") or []
        lead = f"    Term {index}:\t"
        if not expressions:
            lines.append(f"{lead}<none>")
        for position, expr in enumerate(expressions):
            text = f"{expr.get('key', '')} {str(expr.get('operator', '')).lower()}"
            if expr.get("values"):
                text += f" [{', '.join(expr['values'])}]"
            lines.append(f"{lead if position == 0 else '    ' + chr(9)}{text}")
    return lines


def _source_lines(spec: dict) -> list[str]:
    if spec.get("hostPath") is not None:
        host = spec["hostPath"]
        return [
            "    Type:\tHostPath (bare host directory volume)",
            f"    Path:\t{host.get('path', '')}",
            f"    HostPathType:\t{host.get('type') or '<none>'}",
        ]
    if spec.get("local") is not None:
        return [
            "    Type:\tLocalVolume (a persistent volume backed by local storage on a node)",
            f"    Path:\t{spec['local'].get('path', '')}",
        ]
    return ["  <unknown>"]


def status_line(obj: dict) -> str:
    """describePersistentVolume(Claim)'s Status: `Terminating (lasts 12s)` while being deleted
    (kept by its protection finalizer), else the phase."""
    since = parse_time((obj.get("metadata") or {}).get("deletionTimestamp") or "")
    if since is not None:
        return f"Status:\tTerminating (lasts {human_duration(clock.now() - since)})"
    return f"Status:\t{(obj.get('status') or {}).get('phase', '')}"


def describe_lines(pv: dict) -> list[str]:
    meta, spec, status = pv["metadata"], pv.get("spec") or {}, pv.get("status") or {}
    lines = [
        f"Name:\t{meta['name']}",
        *labels_multiline("Labels", meta.get("labels")),
        *annotations_multiline("Annotations", meta.get("annotations")),
        f"Finalizers:\t[{' '.join(meta.get('finalizers') or [])}]",
        f"StorageClass:\t{volume_class(pv)}",
        status_line(pv),
        f"Claim:\t{_claim_text(spec)}",
        f"Reclaim Policy:\t{spec.get('persistentVolumeReclaimPolicy', '')}",
        f"Access Modes:\t{access_modes_text(spec.get('accessModes'))}",
    ]
    if spec.get("volumeMode"):
        lines.append(f"VolumeMode:\t{spec['volumeMode']}")
    lines.append(f"Capacity:\t{_storage(spec.get('capacity'))}")
    lines += node_affinity_lines(spec.get("nodeAffinity"))
    lines += [f"Message:\t{status.get('message', '')}", "Source:", *_source_lines(spec)]
    return lines


def describe(read, namespace: str, name: str) -> str:
    pv = read.get("PersistentVolume", None, name)
    return with_events(describe_lines(pv), events_of(read, pv), clock.now())


KIND = KindInfo(
    kind="PersistentVolume",
    plural="persistentvolumes",
    singular="persistentvolume",
    group="",
    version="v1",
    namespaced=False,
    short_names=("pv",),
    subresources=(status_subresource("PersistentVolume"),),
    reset_rank=75,  # after the claims bound to it
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

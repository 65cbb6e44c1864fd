"""CSIDrivers (storage.k8s.io/v1, `csidrivers`, cluster-scoped), v1.33: upstream
`pkg/registry/storage/csidriver`, SetDefaults_CSIDriver, ValidateCSIDriver and printCSIDriver;
kubectl has no CSIDriver describer, so `kubectl describe csidriver` is the generic one."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kubeapi import describe
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age

FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")  # sets.List(): sorted
LIFECYCLE_MODES = ("Persistent", "Ephemeral")
MIN_TOKEN_SECONDS = 600
MAX_TOKEN_SECONDS = 1 << 32
MIN_UPDATE_PERIOD = 10
TOO_SHORT = "may not specify a duration less than 10 minutes"
TOO_LONG = "may not specify a duration larger than 2^32 seconds"


def defaults(obj: dict) -> None:
    """SetDefaults_CSIDriver, with v1.33's feature gates on (fsGroupPolicy, modes, seLinuxMount)."""
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("attachRequired", True)
    spec.setdefault("podInfoOnMount", False)
    spec.setdefault("storageCapacity", False)
    spec.setdefault("fsGroupPolicy", "ReadWriteOnceWithFSType")
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    spec.setdefault("requiresRepublish", False)
    spec.setdefault("seLinuxMount", False)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """validateCSIDriverSpec, and on update ValidateCSIDriverUpdate's two immutable fields."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    # Upstream's path says `attachedRequired`, not the field's name.
    for field, path in (
        ("attachRequired", "spec.attachedRequired"),
        ("podInfoOnMount", "spec.podInfoOnMount"),
        ("storageCapacity", "spec.storageCapacity"),
        ("seLinuxMount", "spec.seLinuxMount"),
    ):
        if spec.get(field) is None:
            errors.required(path)
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        errors.not_supported("spec.fsGroupPolicy", policy, FS_GROUP_POLICIES)
    _token_requests(errors, spec.get("tokenRequests") or [])
    for mode in spec.get("volumeLifecycleModes") or []:
        if mode not in LIFECYCLE_MODES:
            errors.not_supported("spec.volumeLifecycleModes", mode, LIFECYCLE_MODES)
    period = spec.get("nodeAllocatableUpdatePeriodSeconds")
    if isinstance(period, int) and period < MIN_UPDATE_PERIOD:
        detail = "must be greater than or equal to 10 seconds"
        errors.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period, detail)
    if old is not None:
        old_spec = old.get("spec") or {}
        if spec.get("attachRequired") != old_spec.get("attachRequired"):
            errors.invalid("spec.attachedRequired", spec.get("attachRequired"), "field is immutable")
        modes = spec.get("volumeLifecycleModes")
        if modes != old_spec.get("volumeLifecycleModes"):
            errors.invalid_shown("spec.volumeLifecycleModes", _go_modes(modes), "field is immutable")


def _go_modes(modes: object) -> str:
    """Go's %#v of the internal []storage.VolumeLifecycleMode, as ValidateImmutableField prints it."""
    if not isinstance(modes, list) or not modes:
        return "[]storage.VolumeLifecycleMode(nil)"
    return "[]storage.VolumeLifecycleMode{" + ", ".join(f'"{m}"' for m in modes) + "}"


def _token_requests(errors: FieldErrors, requests: list) -> None:
    """validateTokenRequests: audiences unique, expirations between 10 minutes and 2^32 s."""
    seen: set[str] = set()
    for index, request in enumerate(requests):
        if not isinstance(request, dict):
            continue
        path = f"spec.tokenRequests[{index}]"
        audience = request.get("audience") or ""
        if audience in seen:
            errors.duplicate(f"{path}.audience", audience)
            continue
        seen.add(audience)
        seconds = request.get("expirationSeconds")
        if not isinstance(seconds, int):
            continue
        if seconds < MIN_TOKEN_SECONDS:
            errors.invalid(f"{path}.expirationSeconds", seconds, TOO_SHORT)
        if seconds > MAX_TOKEN_SECONDS:
            errors.invalid(f"{path}.expirationSeconds", seconds, TOO_LONG)


def _flag(spec: dict, field: str, default: bool) -> bool:
    value = spec.get(field)
    return value if isinstance(value, bool) else default


def _row(obj: dict, now: datetime) -> list:
    spec = obj.get("spec") or {}
    tokens = spec.get("tokenRequests")
    audiences = ",".join(t.get("audience") or "" for t in tokens) if tokens is not None else "<unset>"
    modes = ",".join(spec.get("volumeLifecycleModes") or []) or "<none>"
    return [
        obj["metadata"]["name"],
        _flag(spec, "attachRequired", True),
        _flag(spec, "podInfoOnMount", False),
        _flag(spec, "storageCapacity", False),
        audiences,
        _flag(spec, "requiresRepublish", False),
        modes,
        age(obj, now),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("AttachRequired", "boolean", "", 0),
        ("PodInfoOnMount", "boolean", "", 0),
        ("StorageCapacity", "boolean", "", 0),
        ("TokenRequests", "string", "", 0),
        ("RequiresRepublish", "boolean", "", 0),
        ("Modes", "string", "", 0),
        AGE_COLUMN,
    ),
    _row,
)

KIND = KindInfo(
    kind="CSIDriver",
    plural="csidrivers",
    singular="csidriver",
    group="storage.k8s.io",
    version="v1",
    namespaced=False,
    reset_rank=85,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe.generic("CSIDriver"),
)

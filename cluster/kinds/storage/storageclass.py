"""StorageClasses (storage.k8s.io/v1, `storageclasses`, short name `sc`, cluster-scoped), v1.33:
upstream `pkg/registry/storage/storageclass`, SetDefaults_StorageClass, ValidateStorageClass(Update),
printStorageClass and kubectl's describeStorageClass.

Every cluster has the default class `standard` from its birth, served like the system
PriorityClasses: its provisioner is KubeSim's simulated one (the PV controller,
`cluster/controllers/persistentvolume.py`, provisions its volumes), it binds at
WaitForFirstConsumer as kind's default class does, and it may be changed (it is stored on its
first write) but not deleted (docs/storage.md).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from cluster.apiserver.errors import ApiError
from cluster.apiserver.fielderrors import FieldErrors, qualified_name_errors
from cluster.apiserver.kinds import BuiltinObjects, KindInfo
from cluster.kubeapi.describe import events_of, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.labels import format_labels
from k8s.volumes import (
    BETA_DEFAULT_CLASS_ANNOTATION,
    DEFAULT_CLASS_ANNOTATION,
    IMMEDIATE,
    WAIT_FOR_FIRST_CONSUMER,
    is_default_class,
)

DEFAULT_CLASS = "standard"
SIMULATED_PROVISIONER = "kubesim.io/simulated"
RECLAIM_POLICIES = ("Delete", "Retain")
BINDING_MODES = (IMMEDIATE, WAIT_FOR_FIRST_CONSUMER)


def default_class(cluster, name: str = DEFAULT_CLASS) -> dict:
    """The built-in default StorageClass as the API server serves it before anyone writes it."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": name,
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:storageclass:{name}")),
            "resourceVersion": "1",
            "creationTimestamp": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "annotations": {DEFAULT_CLASS_ANNOTATION: "true"},
        },
        "provisioner": SIMULATED_PROVISIONER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": WAIT_FOR_FIRST_CONSUMER,
        "allowVolumeExpansion": True,
    }


def _undeletable(name: str) -> ApiError:
    message = (
        f'storageclasses.storage.k8s.io "{name}" is forbidden: '
        "KubeSim's default class of its simulated provisioner cannot be deleted"
    )
    return ApiError(
        403, "Forbidden", message, {"name": name, "group": "storage.k8s.io", "kind": "storageclasses"}
    )


def defaults(obj: dict) -> None:
    """SetDefaults_StorageClass."""
    if obj.get("reclaimPolicy") is None:
        obj["reclaimPolicy"] = "Delete"
    if obj.get("volumeBindingMode") is None:
        obj["volumeBindingMode"] = IMMEDIATE


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidateStorageClass and ValidateStorageClassUpdate."""
    provisioner = obj.get("provisioner")
    if not isinstance(provisioner, str) or not provisioner:
        errors.required("provisioner")
    else:
        for message in qualified_name_errors(provisioner.lower()):
            errors.invalid("provisioner", provisioner, message)
    parameters = obj.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        errors.type_error("parameters", parameters, "a map of strings")
    elif parameters:
        for key in parameters:
            if not key:
                errors.invalid("parameters", parameters, "field can not be empty.")
    policy = obj.get("reclaimPolicy")
    if policy not in RECLAIM_POLICIES:
        errors.not_supported("reclaimPolicy", policy, RECLAIM_POLICIES)
    mode = obj.get("volumeBindingMode")
    if mode not in BINDING_MODES:
        errors.not_supported("volumeBindingMode", mode, BINDING_MODES)
    if old is None:
        return
    if (old.get("parameters") or {}) != (parameters or {}):
        errors.forbidden("parameters", "updates to parameters are forbidden.")
    if old.get("provisioner") != provisioner:
        errors.forbidden("provisioner", "updates to provisioner are forbidden.")
    if old.get("reclaimPolicy") != policy:
        errors.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden.")
    if old.get("volumeBindingMode") != mode:
        errors.invalid("volumeBindingMode", mode, "field is immutable")


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    name = obj["metadata"]["name"]
    if is_default_class(obj):
        name += " (default)"
    return [
        name,
        obj.get("provisioner") or "",
        obj.get("reclaimPolicy") or "Delete",
        obj.get("volumeBindingMode") or IMMEDIATE,
        bool(obj.get("allowVolumeExpansion")),
        age(obj, now),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Provisioner", "string", "", 0),
        ("ReclaimPolicy", "string", "", 0),
        ("VolumeBindingMode", "string", "", 0),
        ("AllowVolumeExpansion", "string", "", 0),
        AGE_COLUMN,
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def _bool_pointer(value: object) -> str:
    """kubectl's printBoolPtr."""
    return "Unset" if value is None else ("True" if value else "False")


def _allowed_topologies(terms: list) -> list[str]:
    """printAllowedTopologies."""
    lines = ["AllowedTopologies:\t" + ("<none>" if not terms else "")]
    for index, term in enumerate(terms or []):
        expressions = term.get("matchLabelExpressions") or []
        lead = f"  Term {index}:\t"
        if not expressions:
            lines.append(f"{lead}<none>")
        for position, expr in enumerate(expressions):
            text = f"{expr.get('key', '')} in [{', '.join(expr.get('values') or [])}]"
            lines.append(f"{lead if position == 0 else '  ' + chr(9)}{text}")
    return lines


def describe_lines(sc: dict) -> list[str]:
    meta = sc["metadata"]
    annotations = meta.get("annotations") or {}
    default = (
        "Yes"
        if "true"
        in (annotations.get(DEFAULT_CLASS_ANNOTATION), annotations.get(BETA_DEFAULT_CLASS_ANNOTATION))
        else "No"
    )
    lines = [
        f"Name:\t{meta['name']}",
        f"IsDefaultClass:\t{default}",
        f"Annotations:\t{format_labels(annotations)}",
        f"Provisioner:\t{sc.get('provisioner', '')}",
        f"Parameters:\t{format_labels(sc.get('parameters'))}",
        f"AllowVolumeExpansion:\t{_bool_pointer(sc.get('allowVolumeExpansion'))}",
    ]
    options = sc.get("mountOptions") or []
    if not options:
        lines.append("MountOptions:\t<none>")
    else:
        lines += ["MountOptions:", *(f"  {option}" for option in options)]
    if sc.get("reclaimPolicy") is not None:
        lines.append(f"ReclaimPolicy:\t{sc['reclaimPolicy']}")
    if sc.get("volumeBindingMode") is not None:
        lines.append(f"VolumeBindingMode:\t{sc['volumeBindingMode']}")
    if sc.get("allowedTopologies") is not None:
        lines += _allowed_topologies(sc["allowedTopologies"])
    return lines


def describe(read, namespace: str, name: str) -> str:
    sc = read.get("StorageClass", None, name)
    return with_events(describe_lines(sc), events_of(read, sc), clock.now())


KIND = KindInfo(
    kind="StorageClass",
    plural="storageclasses",
    singular="storageclass",
    group="storage.k8s.io",
    version="v1",
    namespaced=False,
    short_names=("sc",),
    reset_rank=85,  # after the claims and volumes that name it
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        keys=(("", DEFAULT_CLASS),),
        build=lambda cluster, namespace, name: default_class(cluster, name),
        stored_on_write=True,
        refuse_delete=_undeletable,
    ),
)

"""PriorityClasses (scheduling.k8s.io/v1, `priorityclasses`, short name `pc`, cluster-scoped),
v1.33: upstream `pkg/registry/scheduling/priorityclass` and `pkg/apis/scheduling`.

- The two system classes exist in every cluster from its birth, as the API server's post-start
  hook creates them; they can be read but neither changed into something else nor deleted.
- Validation is upstream's ValidatePriorityClass(/Update): names with the `system-` prefix are
  reserved, a user class's value is at most one billion, value and preemptionPolicy are immutable.
- The Priority admission plugin (`cluster/apiserver/admission/priority.py`) refuses a second
  `globalDefault` class and resolves a new pod's priority from its class.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from cluster.apiserver.errors import ApiError
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import BuiltinObjects, KindInfo
from cluster.kubeapi.describe import events_of, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.labels import format_labels

SYSTEM_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
DEFAULT_PRIORITY = 0  # DefaultPriorityWhenNoDefaultClassExists
PREEMPT_LOWER = "PreemptLowerPriority"
POLICIES = (PREEMPT_LOWER, "Never")
# scheduling.SystemPriorityClasses(): name -> (value, description)
SYSTEM_CLASSES = {
    "system-node-critical": (
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    "system-cluster-critical": (
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to another node "
        "if necessary.",
    ),
}


def system_class(cluster, name: str) -> dict | None:
    """A system PriorityClass as the API server serves it (None for any other name)."""
    if name not in SYSTEM_CLASSES:
        return None
    value, description = SYSTEM_CLASSES[name]
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {
            "name": name,
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:priorityclass:{name}")),
            "resourceVersion": "1",
            "generation": 1,
            "creationTimestamp": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "value": value,
        "description": description,
        "preemptionPolicy": PREEMPT_LOWER,
    }


def _undeletable(name: str) -> ApiError:
    """The REST storage's Delete refuses the system classes."""
    message = (
        f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: '
        "this is a system priority class and cannot be deleted"
    )
    details = {"name": name, "group": "scheduling.k8s.io", "kind": "priorityclasses"}
    return ApiError(403, "Forbidden", message, details)


def defaults(obj: dict) -> None:
    """SetDefaults_PriorityClass."""
    obj.setdefault("preemptionPolicy", PREEMPT_LOWER)


def _is_int32(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidatePriorityClass and ValidatePriorityClassUpdate."""
    name = (obj.get("metadata") or {}).get("name") or ""
    value = obj.get("value")
    if not _is_int32(value):
        errors.invalid("value", value, "must be a 32-bit integer")
        return
    if name.startswith(SYSTEM_PREFIX):
        problem = _system_class_problem(name, value, bool(obj.get("globalDefault")))
        if problem:
            errors.forbidden(
                "metadata.name",
                f"priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. "
                f"error: {problem}",
            )
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errors.forbidden(
            "value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        )
    policy = obj.get("preemptionPolicy")
    if policy is not None and policy not in POLICIES:
        errors.not_supported("preemptionPolicy", policy, POLICIES)
    if old is not None:
        if value != old.get("value"):
            errors.forbidden("value", "may not be changed in an update.")
        if policy != old.get("preemptionPolicy"):
            errors.invalid("preemptionPolicy", policy, "field is immutable")


def _system_class_problem(name: str, value: int, global_default: bool) -> str:
    """IsKnownSystemPriorityClass's error, or "" when the class is one of them as it must be."""
    if name not in SYSTEM_CLASSES:
        return f"{name} is not a known system priority class"
    if SYSTEM_CLASSES[name][0] != value:
        return f"value of {name} PriorityClass must be {SYSTEM_CLASSES[name][0]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return ""


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    return [
        obj["metadata"]["name"],
        obj.get("value", 0),
        bool(obj.get("globalDefault")),
        age(obj, now),
        obj.get("preemptionPolicy") or "",
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Value", "integer", "", 0),
        ("Global-Default", "boolean", "", 0),
        AGE_COLUMN,
        ("PreemptionPolicy", "string", "", 0),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_priority_class(pc: dict) -> list[str]:
    lines = [
        f"Name:\t{pc['metadata']['name']}",
        f"Value:\t{pc.get('value', 0)}",
        f"GlobalDefault:\t{'true' if pc.get('globalDefault') else 'false'}",
    ]
    if pc.get("preemptionPolicy"):
        lines.append(f"PreemptionPolicy:\t{pc['preemptionPolicy']}")
    lines.append(f"Description:\t{pc.get('description', '')}")
    lines.append(f"Annotations:\t{format_labels(pc['metadata'].get('annotations'))}")
    return lines


def describe(read, namespace: str, name: str) -> str:
    pc = read.get("PriorityClass", None, name)
    return with_events(describe_priority_class(pc), events_of(read, pc), clock.now())


KIND = KindInfo(
    kind="PriorityClass",
    plural="priorityclasses",
    singular="priorityclass",
    group="scheduling.k8s.io",
    version="v1",
    namespaced=False,
    short_names=("pc",),
    reset_rank=80,  # after the pods that name it
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        keys=tuple(("", name) for name in sorted(SYSTEM_CLASSES)),
        build=lambda cluster, namespace, name: system_class(cluster, name),
        refuse_delete=_undeletable,
    ),
)

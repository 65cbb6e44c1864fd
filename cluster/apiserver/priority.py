"""PriorityClass (scheduling.k8s.io/v1) and the Priority admission plugin (v1.33).

- The two system classes exist in every cluster from its birth, as the API server's post-start
  hook creates them; they can be read but neither changed into something else nor deleted.
- Validation is upstream's ValidatePriorityClass(/Update): names with the `system-` prefix are
  reserved, a user class's value is at most one billion, value and preemptionPolicy are immutable.
- Admission (`admission/priority.py`): a second `globalDefault` class is refused; a new pod's
  `priorityClassName` (or the global default's, when it names none) is resolved to
  `spec.priority` and `spec.preemptionPolicy`, and a pod that sets either to something else is
  refused with upstream's words.
"""

from __future__ import annotations

import uuid

from cluster.apiserver.errors import ApiError
from cluster.apiserver.fielderrors import FieldErrors

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


def system_classes(cluster) -> list[dict]:
    return [system_class(cluster, name) for name in sorted(SYSTEM_CLASSES)]


def undeletable(kind: str, name: str) -> ApiError | None:
    """The REST storage's Delete refuses the system classes."""
    if kind != "PriorityClass" or name not in SYSTEM_CLASSES:
        return None
    message = (
        f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: '
        "this is a system priority class and cannot be deleted"
    )
    details = {"name": name, "group": "scheduling.k8s.io", "kind": "priorityclasses"}
    return ApiError(403, "Forbidden", message, details)


# -- the kind's hooks ---------------------------------------------------------------------------
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


def forbidden(plural: str, name: str, why: str, group: str = "") -> ApiError:
    qualified = f"{plural}.{group}" if group else plural
    details = {"name": name, "kind": plural, **({"group": group} if group else {})}
    return ApiError(403, "Forbidden", f'{qualified} "{name}" is forbidden: {why}', details)


def resolve(pod: dict, classes) -> None:
    """Priority admission of a new pod, `classes` answering find(name) and default(): sets
    spec.priorityClassName (the default's), spec.priority and spec.preemptionPolicy, or raises the
    Forbidden upstream answers. The pod's name in errors is its name, else its generateName."""
    meta, spec = pod.get("metadata") or {}, pod.get("spec")
    if not isinstance(spec, dict):
        return
    shown = meta.get("name") or meta.get("generateName") or "Unknown"
    class_name = spec.get("priorityClassName") or ""
    if class_name:
        pc = classes.find(class_name)
        if pc is None:
            raise forbidden("pods", shown, f"no PriorityClass with name {class_name} was found")
        priority, policy = pc.get("value", 0), pc.get("preemptionPolicy") or PREEMPT_LOWER
    else:
        pc = classes.default()
        if pc is not None:
            spec["priorityClassName"] = pc["metadata"]["name"]
            priority, policy = pc.get("value", 0), pc.get("preemptionPolicy") or PREEMPT_LOWER
        else:
            priority, policy = DEFAULT_PRIORITY, PREEMPT_LOWER
    given = spec.get("priority")
    if given is not None and given != priority:
        raise forbidden(
            "pods",
            shown,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority "
            f"admission controller computed {priority} from the given PriorityClass name",
        )
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise forbidden(
            "pods",
            shown,
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass name",
        )
    spec["preemptionPolicy"] = policy

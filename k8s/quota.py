"""ResourceQuota's arithmetic, as upstream's quota evaluators do it (pkg/quota/v1/evaluator/core,
staging/src/k8s.io/apiserver/pkg/quota/v1): what an object uses, which quotas it falls under
(resources and scopes), the pod constraints ("must specify ..."), and the printing of resource
lists (`requests.cpu=500m,requests.memory=1Gi`). Pure Python: admission and the quota controller
both call it, so the refusal and the quota's `status.used` always agree.

A usage is a dict {resource name: quantity.Total}; Totals print as Quantity.String() does.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from k8s.quantity import Total, parse_quantity

PODS, COUNT_PREFIX = "pods", "count/"
# The pod evaluator's compute resources (podResources) and the requests./limits. prefixes it matches.
POD_RESOURCES = (
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    PODS,
)
# Resources that a container must name when a quota limits them (the evaluator's validationSet).
MUST_SPECIFY = ("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")
# Object counts with a legacy name beside count/<resource> (pkg/quota/v1/evaluator/core/registry.go).
LEGACY_COUNTS = {
    "ConfigMap": "configmaps",
    "Secret": "secrets",
    "ReplicationController": "replicationcontrollers",
    "ResourceQuota": "resourcequotas",
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "Service": "services",
}
POD_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass")
SCOPES = (*POD_SCOPES, "CrossNamespacePodAffinity", "VolumeAttributesClass")
SCOPE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def count_name(plural: str, group: str) -> str:
    """The object-count resource of a kind: count/pods, count/deployments.apps."""
    return f"{COUNT_PREFIX}{plural}.{group}" if group else f"{COUNT_PREFIX}{plural}"


def total_of(value) -> Total:
    """A quantity (`1Gi`, `500m`, 3) as a Total that prints as Quantity.String() does."""
    total = Total()
    total.add(value)
    return total


_total = total_of


def add(usage: dict[str, Total], more: dict[str, Total]) -> None:
    """quota.Add, in place: the sum keeps the format of its first non-zero term (Quantity.Add
    takes the other's format when it is zero)."""
    for name, total in more.items():
        if name in usage:
            kept = usage[name]
            if kept.value == 0 or kept.binary is None:
                kept.binary = total.binary
            kept.value += total.value
        else:
            copy = Total()
            copy.value, copy.binary = total.value, total.binary
            usage[name] = copy


def pretty(usage: dict, names) -> str:
    """prettyPrint: `name=quantity` sorted by name, joined by commas."""
    return ",".join(f"{name}={usage.get(name, '0')}" for name in sorted(names))


# -- pods -----------------------------------------------------------------------------------------
def _containers(pod: dict, field: str) -> list[dict]:
    return [c for c in ((pod.get("spec") or {}).get(field) or []) if isinstance(c, dict)]


def _resources(container: dict, which: str) -> dict:
    found = (container.get("resources") or {}).get(which)
    return found if isinstance(found, dict) else {}


def _sum_into(into: dict[str, Fraction], values: dict) -> None:
    for name, text in values.items():
        into[name] = into.get(name, Fraction(0)) + parse_quantity(text)


def _max_into(into: dict[str, Fraction], values: dict[str, Fraction]) -> None:
    for name, amount in values.items():
        if name not in into or amount > into[name]:
            into[name] = amount


def pod_resources(pod: dict, which: str) -> tuple[dict[str, Fraction], dict[str, bool]]:
    """resourcehelper.PodRequests / PodLimits: the containers' sum, sidecars (restartable init
    containers) added, the largest regular init container's need if it is larger; with the
    binary-ness of each resource's first quantity, for printing."""
    total: dict[str, Fraction] = {}
    binary: dict[str, bool] = {}
    for container in _containers(pod, "containers"):
        _sum_into(total, _resources(container, which))
        for name, text in _resources(container, which).items():
            binary.setdefault(name, isinstance(text, str) and text.endswith("i"))
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for container in _containers(pod, "initContainers"):
        own: dict[str, Fraction] = {}
        _sum_into(own, _resources(container, which))
        for name, text in _resources(container, which).items():
            binary.setdefault(name, isinstance(text, str) and text.endswith("i"))
        if container.get("restartPolicy") == "Always":
            for name, amount in own.items():
                total[name] = total.get(name, Fraction(0)) + amount
                sidecars[name] = sidecars.get(name, Fraction(0)) + amount
            _max_into(init_max, dict(sidecars))
        else:
            _max_into(
                init_max,
                {n: own.get(n, Fraction(0)) + sidecars.get(n, Fraction(0)) for n in {*own, *sidecars}},
            )
    _max_into(total, init_max)
    return total, binary


def counts_for_quota(pod: dict, now: datetime) -> bool:
    """QuotaV1Pod: a pod that finished, or whose deletion grace period ran out, uses nothing."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    meta = pod.get("metadata") or {}
    deleted, grace = meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")
    if deleted and grace is not None:
        try:
            at = datetime.fromisoformat(str(deleted).replace("Z", "+00:00"))
        except ValueError:
            return True
        return now.timestamp() <= at.timestamp() + int(grace)
    return True


def _quantity(amount: Fraction, binary: bool) -> Total:
    total = Total()
    total.value, total.binary = amount, binary
    return total


def pod_usage(pod: dict, now: datetime) -> dict[str, Total]:
    """PodUsageFunc: count/pods always; pods and the compute resources while the pod counts."""
    usage = {f"{COUNT_PREFIX}pods": _total(1)}
    if not counts_for_quota(pod, now):
        return usage
    usage[PODS] = _total(1)
    requests, binary_requests = pod_resources(pod, "requests")
    limits, binary_limits = pod_resources(pod, "limits")
    for name, amount in requests.items():
        binary = binary_requests.get(name, False)
        if name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-"):
            usage[name] = _quantity(amount, binary)
            usage[f"requests.{name}"] = _quantity(amount, binary)
        elif "/" in name:  # an extended resource: quota'd as requests.<name> only
            usage[f"requests.{name}"] = _quantity(amount, binary)
    for name, amount in limits.items():
        if name in ("cpu", "memory", "ephemeral-storage"):
            usage[f"limits.{name}"] = _quantity(amount, binary_limits.get(name, False))
    return usage


def is_best_effort(pod: dict) -> bool:
    """GetPodQOS == BestEffort: no container requests or limits cpu or memory."""
    for field in ("containers", "initContainers"):
        for container in _containers(pod, field):
            for which in ("requests", "limits"):
                values = _resources(container, which)
                if any(name in values and parse_quantity(values[name]) != 0 for name in ("cpu", "memory")):
                    return False
    return True


def is_terminating(pod: dict) -> bool:
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    return isinstance(deadline, int) and not isinstance(deadline, bool) and deadline >= 0


def _cross_namespace_affinity(pod: dict) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind) or {}
        terms = list(rules.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [
            t.get("podAffinityTerm") or {}
            for t in rules.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        ]
        if any(
            t.get("namespaces") or t.get("namespaceSelector") is not None
            for t in terms
            if isinstance(t, dict)
        ):
            return True
    return False


def _pod_scope_value(scope: str, pod: dict) -> bool | str:
    if scope == "Terminating":
        return is_terminating(pod)
    if scope == "NotTerminating":
        return not is_terminating(pod)
    if scope == "BestEffort":
        return is_best_effort(pod)
    if scope == "NotBestEffort":
        return not is_best_effort(pod)
    if scope == "CrossNamespacePodAffinity":
        return _cross_namespace_affinity(pod)
    return False


def scope_selectors(quota: dict) -> list[dict]:
    """getScopeSelectorsFromQuota: spec.scopes as `Exists` requirements, then the scopeSelector's."""
    spec = quota.get("spec") or {}
    found = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    found += [
        r for r in ((spec.get("scopeSelector") or {}).get("matchExpressions") or []) if isinstance(r, dict)
    ]
    return found


def _pod_matches_scope(requirement: dict, pod: dict) -> bool:
    scope, operator = requirement.get("scopeName"), requirement.get("operator")
    values = requirement.get("values") or []
    if scope == "PriorityClass":
        name = (pod.get("spec") or {}).get("priorityClassName") or ""
        if operator == "Exists":
            return bool(name)
        if operator == "DoesNotExist":
            return not name
        if operator == "In":
            return name in values
        if operator == "NotIn":
            return name not in values
        return False
    matched = bool(_pod_scope_value(scope, pod))
    return not matched if operator == "DoesNotExist" else matched


def object_usage(kind: str, plural: str, group: str, obj: dict, now: datetime) -> dict[str, Total]:
    """What one stored object uses: its object count (and legacy name), or a pod's whole usage."""
    if kind == "Pod":
        return pod_usage(obj, now)
    usage = {count_name(plural, group): _total(1)}
    if kind in LEGACY_COUNTS:
        usage[LEGACY_COUNTS[kind]] = _total(1)
    if kind == "PersistentVolumeClaim":
        usage.update(_claim_usage(obj))
    if kind == "Service":
        spec = obj.get("spec") or {}
        if spec.get("type") == "LoadBalancer":
            usage["services.loadbalancers"] = _total(1)
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            usage["services.nodeports"] = _total(len(spec.get("ports") or []))
        else:
            usage["services.nodeports"] = _total(0)
        usage.setdefault("services.loadbalancers", _total(0))
    return usage


STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"


def _claim_usage(claim: dict) -> dict[str, Total]:
    """The persistentvolumeclaims evaluator: requests.storage, and both per storage class."""
    spec = claim.get("spec") or {}
    requested = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
    usage = {}
    storage = _total(requested) if requested is not None else None
    if storage is not None:
        usage["requests.storage"] = storage
    class_name = spec.get("storageClassName")
    if class_name:
        usage[f"{class_name}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"] = _total(1)
        if storage is not None:
            usage[f"{class_name}{STORAGE_CLASS_SUFFIX}requests.storage"] = _total(requested)
    return usage


def pod_resource_name(name: str) -> bool:
    """Whether the pod evaluator matches this resource name (podResources and its prefixes)."""
    return (
        name in POD_RESOURCES
        or name == f"{COUNT_PREFIX}pods"
        or name.startswith("hugepages-")
        or name.startswith("requests.hugepages-")
        or (name.startswith("requests.") and "/" in name)
    )


def matching_resources(kind: str, plural: str, group: str, hard_names) -> list[str]:
    """The evaluator's MatchingResources: which of a quota's resources this kind is counted in."""
    if kind == "Pod":
        return sorted(n for n in hard_names if pod_resource_name(n))
    mine = {count_name(plural, group), LEGACY_COUNTS.get(kind, "")}
    if kind == "Service":
        mine |= {"services.loadbalancers", "services.nodeports"}
    if kind == "PersistentVolumeClaim":
        mine.add("requests.storage")
        mine |= {n for n in hard_names if STORAGE_CLASS_SUFFIX in n}
    return sorted(n for n in hard_names if n in mine)


def matches(quota: dict, kind: str, plural: str, group: str, obj: dict) -> bool:
    """Evaluator.Matches: the quota limits a resource of this kind, and every scope selects it
    (the generic evaluator matches no scope: a scoped quota counts pods only)."""
    hard = (quota.get("spec") or {}).get("hard") or {}
    if not matching_resources(kind, plural, group, hard):
        return False
    for requirement in scope_selectors(quota):
        if kind != "Pod" or not _pod_matches_scope(requirement, obj):
            return False
    return True


def missing_requests(pod: dict, hard_names) -> str | None:
    """podEvaluator.Constraints: a quota on cpu or memory makes every container name them.
    The message after `must specify `, or None."""
    required = sorted(set(hard_names) & set(MUST_SPECIFY))
    if not required:
        return None
    missing: dict[str, list[str]] = {}
    for field in ("containers", "initContainers"):
        for container in _containers(pod, field):
            requests, limits = _resources(container, "requests"), _resources(container, "limits")
            has = set()
            for name in ("cpu", "memory"):
                if name in requests:
                    has |= {name, f"requests.{name}"}
                if name in limits:
                    has.add(f"limits.{name}")
            for name in required:
                if name not in has:
                    missing.setdefault(name, []).append(str(container.get("name", "")))
    if not missing:
        return None
    return "; ".join(f"{name} for: {','.join(sorted(set(names)))}" for name, names in sorted(missing.items()))


def exceeds(used: dict[str, Total], requested: dict[str, Total], hard: dict) -> list[str]:
    """quota.LessThanOrEqual on the resources requested: the names whose new usage passes hard."""
    over = []
    for name, amount in requested.items():
        if name not in hard:
            continue
        current = used[name].value if name in used else Fraction(0)
        if current + amount.value > parse_quantity(hard[name]):
            over.append(name)
    return sorted(over)

"""ResourceQuotas (core/v1, `resourcequotas`, short name `quota`): ValidateResourceQuota,
printResourceQuota (NAME, AGE, REQUEST, LIMIT), `kubectl describe quota` (describeQuota) and the
namespace describer's "Resource Quotas" section (DescribeResourceQuotas), v1.33.

Admission holds every create to them (cluster/apiserver/admission/resourcequota.py); the quota
controller keeps `status.hard` and `status.used` (cluster/controllers/resourcequota.py).
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.fielderrors import FieldErrors, qualified_name_errors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from cluster.kubeapi.tabwriter import tabwrite
from k8s import quota as q
from k8s.quantity import QuantityError, canonical, format_quantity, is_binary, milli_value, parse_quantity
from k8s.quantity import value as whole_value

# helper.standardQuotaResources (names without a '/' must be one of these, or hugepages).
STANDARD_RESOURCES = frozenset(
    (
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    )
)
INTEGER_RESOURCES = frozenset(
    (
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    )
)
# IsResourceQuotaScopeValidForResource: what a scope may limit.
_POD_COUNT = frozenset(("pods",))
_POD_COMPUTE = frozenset(
    ("pods", "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory")
)
_SCOPE_RESOURCES = {
    "BestEffort": _POD_COUNT,
    "NotBestEffort": _POD_COMPUTE,
    "Terminating": _POD_COMPUTE,
    "NotTerminating": _POD_COMPUTE,
    "PriorityClass": _POD_COMPUTE,
    "CrossNamespacePodAffinity": _POD_COUNT,
}
SCOPE_HELP = {
    "Terminating": "Matches all pods that have an active deadline. These pods have a limited lifespan on a "
    "node before being actively terminated by the system.",
    "NotTerminating": "Matches all pods that do not have an active deadline. These pods usually include long "
    "running pods whose container command is not expected to terminate.",
    "BestEffort": "Matches all pods that do not have resource requirements set. These pods have a best "
    "effort quality of service.",
    "NotBestEffort": "Matches all pods that have at least one resource requirement set. These pods have a "
    "burstable or guaranteed quality of service.",
}


def _is_standard(name: str) -> bool:
    return (
        name in STANDARD_RESOURCES or name.startswith("requests.hugepages-") or name.startswith("hugepages-")
    )


def _is_integer(name: str) -> bool:
    """helper.IsIntegerResourceName: the object counts, and extended resources (with a '/')."""
    return name in INTEGER_RESOURCES or ("/" in name and "kubernetes.io/" not in name)


def _go_scopes(scopes: list) -> str:
    return "[]core.ResourceQuotaScope{" + ", ".join(f'"{s}"' for s in scopes) + "}"


def validate_hard(errors: FieldErrors, path: str, hard: object) -> None:
    """ValidateResourceQuotaResourceName and ValidateResourceQuantityValue for each entry."""
    if not isinstance(hard, dict):
        return
    for name, value in hard.items():
        where = f"{path}[{name}]"
        messages = qualified_name_errors(str(name))
        for message in messages:
            errors.invalid(where, name, message)
        if not messages and "/" not in name and not _is_standard(name):
            errors.invalid(where, name, "must be a standard resource for quota")
        try:
            amount = parse_quantity(value)
        except (QuantityError, TypeError):
            continue  # the decoder's type check refuses it first
        if amount < 0:
            errors.invalid(where, format_quantity(value), "must be greater than or equal to 0")
        if _is_integer(str(name)) and milli_value(value) % 1000:
            errors.invalid(where, format_quantity(value), "must be an integer")


def _validate_scopes(errors: FieldErrors, spec: dict) -> None:
    scopes = spec.get("scopes") or []
    if not isinstance(scopes, list) or not scopes:
        return
    shown = _go_scopes(scopes)
    hard = spec.get("hard") if isinstance(spec.get("hard"), dict) else {}
    for scope in scopes:
        if scope not in q.SCOPES:
            errors.invalid_shown("spec.scopes", shown, "unsupported scope")
        for name in sorted(hard):
            if _is_standard(name) and name not in _SCOPE_RESOURCES.get(scope, _POD_COMPUTE):
                errors.invalid_shown("spec.scopes", shown, "unsupported scope applied to resource")
    for pair in (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")):
        if all(scope in scopes for scope in pair):
            errors.invalid_shown("spec.scopes", shown, "conflicting scopes")


def _validate_scope_selector(errors: FieldErrors, spec: dict) -> None:
    selector = spec.get("scopeSelector")
    if not isinstance(selector, dict):
        return
    for i, requirement in enumerate(selector.get("matchExpressions") or []):
        if not isinstance(requirement, dict):
            continue
        path = f"spec.scopeSelector.matchExpressions[{i}]"
        scope, operator = requirement.get("scopeName"), requirement.get("operator")
        if scope not in q.SCOPES:
            errors.invalid(f"{path}.scopeName", scope, "unsupported scope")
        if operator not in q.SCOPE_OPERATORS:
            errors.invalid(f"{path}.operator", operator, "not a valid selector operator")
        elif operator in ("In", "NotIn") and not requirement.get("values"):
            errors.required(
                f"{path}.values",
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            )
        elif operator in ("Exists", "DoesNotExist") and requirement.get("values"):
            errors.invalid(
                f"{path}.values",
                requirement.get("values"),
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            )


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    validate_hard(errors, "spec.hard", spec.get("hard"))
    _validate_scopes(errors, spec)
    _validate_scope_selector(errors, spec)
    status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
    validate_hard(errors, "status.hard", status.get("hard"))
    validate_hard(errors, "status.used", status.get("used"))
    if old is not None and sorted((old.get("spec") or {}).get("scopes") or []) != sorted(
        spec.get("scopes") or []
    ):
        errors.invalid_shown("spec.scopes", _go_scopes(spec.get("scopes") or []), "field is immutable")


# -- kubectl get ----------------------------------------------------------------------------------
def _used_and_hard(quota: dict) -> list[tuple[str, str, str]]:
    """(resource, used, hard) for each resource in status.hard, sorted by name."""
    status = quota.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    return [
        (name, format_quantity(used.get(name, "0")), format_quantity(hard[name])) for name in sorted(hard)
    ]


def _row(obj: dict, now: datetime) -> list:
    requests, limits = [], []
    for name, used, hard in _used_and_hard(obj):
        (limits if name.split(".")[0] == "limits" and "." in name else requests).append(
            f"{name}: {used}/{hard}"
        )
    return [obj["metadata"]["name"], age(obj, now), ", ".join(requests), ", ".join(limits)]


TABLE = TableSpec(
    (NAME_COLUMN, AGE_COLUMN, ("Request", "string", "", 0), ("Limit", "string", "", 0)),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def _scope_lines(quota: dict, indent: str, bullet: str) -> list[str]:
    scopes = sorted(str(s) for s in (quota.get("spec") or {}).get("scopes") or [])
    if not scopes:
        return []
    lines = [f"{indent}Scopes:\t{', '.join(scopes)}"]
    lines += [f"{bullet}* {SCOPE_HELP[s]}" for s in scopes if s in SCOPE_HELP]
    return lines


def describe_quota(quota: dict) -> str:
    """describeQuota: used printed in the hard value's format when the two differ."""
    meta = quota.get("metadata") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines += _scope_lines(quota, "", " ")
    lines += ["Resource\tUsed\tHard", "--------\t----\t----"]
    status = quota.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    for name in sorted(hard):
        lines.append(
            f"{name}\t{_used_as_hard(used.get(name, '0'), hard[name])}\t{format_quantity(hard[name])}"
        )
    return tabwrite("\n".join(lines) + "\n")


def _used_as_hard(used: object, hard: object) -> str:
    """`usedQuantity = NewQuantity(used.Value(), hard.Format)` when their formats differ."""
    if is_binary(used) == is_binary(hard):
        return format_quantity(used)
    return canonical(whole_value(used), is_binary(hard))


def quota_section(quotas: list[dict]) -> list[str]:
    """DescribeResourceQuotas: the namespace describer's part (before tabwrite)."""
    if not quotas:
        return ["No resource quota."]
    lines = ["Resource Quotas"]
    for quota in sorted(quotas, key=lambda item: item["metadata"]["name"]):
        lines.append(f"  Name:\t{quota['metadata']['name']}")
        lines += _scope_lines(quota, "  ", "  ")
        lines += ["  Resource\tUsed\tHard", "  --------\t---\t---"]
        for name, used, hard in _used_and_hard(quota):
            lines.append(f"  {name}\t{used}\t{hard}")
    return lines


def describe(read, namespace: str, name: str) -> str:
    return describe_quota(read.get("ResourceQuota", namespace, name))


KIND = KindInfo(
    kind="ResourceQuota",
    plural="resourcequotas",
    singular="resourcequota",
    group="",
    version="v1",
    namespaced=True,
    short_names=("quota",),
    subresources=(status_subresource("ResourceQuota"),),
    reset_rank=20,  # before what it counts: a reset's deletions and re-creations are not held to it
    defaults=no_defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

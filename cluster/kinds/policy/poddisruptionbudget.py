"""PodDisruptionBudgets (policy/v1, `poddisruptionbudgets`, short name `pdb`): server-side
defaults and validation, as upstream's `pkg/registry/policy/poddisruptionbudget/strategy.go` and
`pkg/apis/policy/validation`; `kubectl get pdb` (printPodDisruptionBudget) and `describe pdb`
(describePodDisruptionBudget), v1.33.

The budget's arithmetic (expected, desired and current healthy pods, allowed disruptions) is the
disruption controller's (`cluster/controllers/disruption.py`); evictions spend it
(`cluster/apiserver/eviction.py`).
"""

from __future__ import annotations

import re
from datetime import datetime

from cluster.apiserver.errors import Cause
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kubeapi.describe import events_of, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.labels import SelectorError, format_label_selector, label_selector

UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
BOTH_SET = "minAvailable and maxUnavailable cannot be both set"
_PERCENT = re.compile(r"^[0-9]+%$")
_PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def defaults(obj: dict) -> None:
    """A budget's generation starts at 1 (its status says which generation it observed)."""
    obj.setdefault("metadata", {}).setdefault("generation", 1)
    obj.setdefault("spec", {})


def _intstr_value(value: object) -> str:
    """An IntOrString as Go's %#v prints it in a field error."""
    if isinstance(value, str):
        return f'intstr.IntOrString{{Type:1, IntVal:0, StrVal:"{value}"}}'
    return f'intstr.IntOrString{{Type:0, IntVal:{value}, StrVal:""}}'


def _int_or_percent(errors: FieldErrors, path: str, value: object) -> None:
    """ValidatePositiveIntOrPercent and IsNotMoreThan100Percent."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        errors.invalid(path, value, "must be an integer or percentage (e.g '5%')")
        return
    if isinstance(value, int):
        if value < 0:
            errors.causes.append(_cause(path, str(value), "must be greater than or equal to 0"))
        return
    if not _PERCENT.match(value):
        errors.causes.append(_cause(path, _intstr_value(value), _PERCENT_MESSAGE))
    elif int(value[:-1]) > 100:
        errors.causes.append(_cause(path, _intstr_value(value), "must not be greater than 100%"))


def _cause(path: str, shown: str, detail: str) -> Cause:
    return Cause("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}")


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidatePodDisruptionBudgetSpec (metadata is validated for every kind already)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    if low is not None and high is not None:
        errors.causes.append(_cause("spec", "policy.PodDisruptionBudgetSpec{...}", BOTH_SET))
    if low is not None:
        _int_or_percent(errors, "spec.minAvailable", low)
    if high is not None:
        _int_or_percent(errors, "spec.maxUnavailable", high)
    selector = spec.get("selector")
    if selector is not None:
        if not isinstance(selector, dict):
            errors.invalid("spec.selector", selector, "must be an object")
        else:
            errors.labels("spec.selector.matchLabels", selector.get("matchLabels"))
            try:
                label_selector(selector)
            except SelectorError as err:
                errors.invalid("spec.selector", selector, str(err))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errors.not_supported("spec.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES)


# -- kubectl get ----------------------------------------------------------------------------------
COLUMNS = (
    NAME_COLUMN,
    ("Min Available", "string", "", 0),
    ("Max Unavailable", "string", "", 0),
    ("Allowed Disruptions", "integer", "", 0),
    AGE_COLUMN,
)


def _intstr(value: object) -> str:
    return "N/A" if value is None else str(value)


def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        obj["metadata"]["name"],
        _intstr(spec.get("minAvailable")),
        _intstr(spec.get("maxUnavailable")),
        int(status.get("disruptionsAllowed") or 0),
        age(obj, now),
    ]


TABLE = TableSpec(COLUMNS, _row)


def describe_lines(pdb: dict) -> list[str]:
    meta, spec, status = pdb["metadata"], pdb.get("spec") or {}, pdb.get("status") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    if spec.get("minAvailable") is not None:
        lines.append(f"Min available:\t{spec['minAvailable']}")
    elif spec.get("maxUnavailable") is not None:
        lines.append(f"Max unavailable:\t{spec['maxUnavailable']}")
    selector = spec.get("selector")
    lines.append(
        f"Selector:\t{format_label_selector(selector)}" if selector is not None else "Selector:\t<unset>"
    )
    lines += [
        "Status:",
        f"    Allowed disruptions:\t{int(status.get('disruptionsAllowed') or 0)}",
        f"    Current:\t{int(status.get('currentHealthy') or 0)}",
        f"    Desired:\t{int(status.get('desiredHealthy') or 0)}",
        f"    Total:\t{int(status.get('expectedPods') or 0)}",
    ]
    return lines


def describe(read, namespace: str, name: str) -> str:
    pdb = read.get("PodDisruptionBudget", namespace, name)
    return with_events(describe_lines(pdb), events_of(read, pdb), clock.now())


KIND = KindInfo(
    kind="PodDisruptionBudget",
    plural="poddisruptionbudgets",
    singular="poddisruptionbudget",
    group="policy",
    version="v1",
    namespaced=True,
    short_names=("pdb",),
    subresources=(status_subresource("PodDisruptionBudget", "policy"),),
    reset_rank=35,  # before Pods: a budget must not hold up the reset's evictions
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

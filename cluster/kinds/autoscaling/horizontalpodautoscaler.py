"""HorizontalPodAutoscalers (autoscaling/v2, `horizontalpodautoscalers`, short name `hpa`):
SetDefaults_HorizontalPodAutoscaler, ValidateHorizontalPodAutoscaler and printHorizontalPodAutoscaler
of v1.33. autoscaling/v1 is served from the same objects (cluster/kinds/autoscaling/hpa_v1.py);
the controller is cluster/controllers/podautoscaler/ (docs/metrics.md)."""

from __future__ import annotations

import copy
from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, Subresource
from cluster.kinds.autoscaling import hpa_describe
from cluster.kinds.autoscaling.hpa_v1 import V1
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s.quantity import QuantityError, format_quantity, parse_quantity

DEFAULT_CPU_UTILIZATION = 80
MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
METRIC_SOURCE_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
SELECT_POLICIES = ("Disabled", "Max", "Min")
POLICY_TYPES = ("Percent", "Pods")

# autoscaling/v2 defaults.go: the behaviour the controller had before `behavior` existed.
SCALE_UP_RULES = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# The scale-down window is the controller's --horizontal-pod-autoscaler-downscale-stabilization
# (5 minutes), filled in by the controller, not stored.
SCALE_DOWN_RULES = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def _rules(given: object, default: dict) -> dict:
    """copyHPAScalingRules: the defaults, with what the user set kept."""
    rules = copy.deepcopy(default)
    if isinstance(given, dict):
        for field in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if given.get(field) is not None:
                rules[field] = given[field]
    return rules


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION},
                },
            }
        ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _rules(behavior.get("scaleUp"), SCALE_UP_RULES)
        behavior["scaleDown"] = _rules(behavior.get("scaleDown"), SCALE_DOWN_RULES)


# -- validation (pkg/apis/autoscaling/validation) ---------------------------------------------------
def _path_segment(errors: FieldErrors, path: str, value: str) -> None:
    """IsValidPathSegmentName."""
    if value in (".", ".."):
        errors.invalid(path, value, f"may not be '{value}'")
    for bad in ("/", "%"):
        if bad in value:
            errors.invalid(path, value, f"may not contain '{bad}'")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sign(value: object) -> int:
    try:
        number = parse_quantity(value)  # type: ignore[arg-type]
    except (QuantityError, ValueError, TypeError):
        return 0
    return (number > 0) - (number < 0)


def _quantity_shown(value: object) -> str:
    return f'"{format_quantity(value)}"'


def _target(errors: FieldErrors, path: str, target: dict) -> None:
    """validateMetricTarget."""
    kind = target.get("type") or ""
    if not kind:
        errors.required(f"{path}.type", "must specify a metric target type")
    if kind not in ("Utilization", "Value", "AverageValue"):
        errors.invalid(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue")
    for field in ("value", "averageValue"):
        if target.get(field) is not None and _sign(target[field]) != 1:
            errors.invalid_shown(f"{path}.{field}", _quantity_shown(target[field]), "must be positive")
    utilization = _int(target.get("averageUtilization"))
    if utilization is not None and utilization < 1:
        errors.invalid(f"{path}.averageUtilization", utilization, "must be greater than 0")


def _identifier(errors: FieldErrors, path: str, metric: object) -> None:
    name = (metric or {}).get("name") if isinstance(metric, dict) else None
    if not name:
        errors.required(f"{path}.name", "must specify a metric name")
    else:
        _path_segment(errors, f"{path}.name", str(name))


def _resource_source(errors: FieldErrors, path: str, source: dict, container: bool) -> None:
    if not source.get("name"):
        errors.required(f"{path}.name", "must specify a resource name")
    if container and not source.get("container"):
        errors.required(f"{path}.container", "must specify a container")
    target = source.get("target") if isinstance(source.get("target"), dict) else {}
    _target(errors, f"{path}.target", target)
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        errors.required(
            f"{path}.target.averageUtilization", "must set either a target raw value or a target utilization"
        )
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        errors.forbidden(
            f"{path}.target.averageValue", "may not set both a target raw value and a target utilization"
        )


def _metric_source(errors: FieldErrors, path: str, field: str, source: dict) -> None:
    if field in ("resource", "containerResource"):
        _resource_source(errors, path, source, field == "containerResource")
        return
    _identifier(errors, f"{path}.metric", source.get("metric"))
    target = source.get("target") if isinstance(source.get("target"), dict) else {}
    _target(errors, f"{path}.target", target)
    if field == "pods" and target.get("averageValue") is None:
        errors.required(f"{path}.target.averageValue", "must specify a positive target averageValue")
    if field in ("object", "external") and target.get("value") is None and target.get("averageValue") is None:
        errors.required(f"{path}.target.value", "must set either a target value or averageValue")


_FIELDS = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "External": "external",
    "ContainerResource": "containerResource",
}


def _metric(errors: FieldErrors, path: str, spec: dict) -> None:
    """validateMetricSpec: the type named, its source given, and no other source."""
    kind = spec.get("type") or ""
    if not kind:
        errors.required(f"{path}.type", "must specify a metric source type")
    present = [field for field in _FIELDS.values() if spec.get(field) is not None]
    if present and isinstance(spec.get(present[0]), dict):
        _metric_source(errors, f"{path}.{present[0]}", present[0], spec[present[0]])
    expected = _FIELDS.get(kind)
    if expected is None:
        errors.not_supported(f"{path}.type", kind, METRIC_SOURCE_TYPES)
    elif spec.get(expected) is None:
        errors.required(f"{path}.{expected}", "must populate information for the given metric source")
    if len(present) != 1:
        for field in sorted(set(present) - {expected}):
            errors.forbidden(f"{path}.{field}", "must populate the given metric source only")


def _scaling_rules(errors: FieldErrors, path: str, rules: dict) -> None:
    window = _int(rules.get("stabilizationWindowSeconds"))
    if window is not None and window < 0:
        errors.invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero")
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errors.invalid(
            f"{path}.stabilizationWindowSeconds",
            window,
            f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}",
        )
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errors.not_supported(f"{path}.selectPolicy", select, SELECT_POLICIES)
    policies = rules.get("policies") or []
    if not policies:
        errors.required(f"{path}.policies", "must specify at least one Policy")
    for i, policy in enumerate(policies):
        where = f"{path}.policies[{i}]"
        policy = policy if isinstance(policy, dict) else {}
        if policy.get("type") not in POLICY_TYPES:
            errors.not_supported(f"{where}.type", policy.get("type") or "", POLICY_TYPES)
        value, period = _int(policy.get("value")) or 0, _int(policy.get("periodSeconds")) or 0
        if value <= 0:
            errors.invalid(f"{where}.value", value, "must be greater than zero")
        if period <= 0:
            errors.invalid(f"{where}.periodSeconds", period, "must be greater than zero")
        if period > MAX_PERIOD_SECONDS:
            errors.invalid(
                f"{where}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"
            )


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """validateHorizontalPodAutoscalerSpec (metadata is validated for every kind already)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.required("spec", "")
        return
    low, high = _int(spec.get("minReplicas")), _int(spec.get("maxReplicas")) or 0
    if low is not None and low < 1:
        errors.invalid("spec.minReplicas", low, "must be greater than or equal to 1")
    if high < 1:
        errors.invalid("spec.maxReplicas", high, "must be greater than 0")
    if low is not None and high < low:
        errors.invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`")
    ref = spec.get("scaleTargetRef") if isinstance(spec.get("scaleTargetRef"), dict) else {}
    for field in ("kind", "name"):
        if not ref.get(field):
            errors.required(f"spec.scaleTargetRef.{field}", "")
        else:
            _path_segment(errors, f"spec.scaleTargetRef.{field}", str(ref[field]))
    for i, metric in enumerate(spec.get("metrics") or []):
        _metric(errors, f"spec.metrics[{i}]", metric if isinstance(metric, dict) else {})
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for direction in ("scaleUp", "scaleDown"):
            if isinstance(behavior.get(direction), dict):
                _scaling_rules(errors, f"spec.behavior.{direction}", behavior[direction])


# -- kubectl get (printHorizontalPodAutoscaler, formatHPAMetrics) -----------------------------------
def _quantity(value: object) -> str:
    return format_quantity(value) if value is not None else "<unknown>"


def _format_metric(spec: dict, status: dict | None) -> str:
    kind, status = spec.get("type"), status or {}
    if kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source, current = spec.get(field) or {}, (status.get(field) or {}).get("current") or {}
        target = source.get("target") or {}
        name = source.get("name", "")
        if target.get("averageValue") is not None:
            shown = _quantity(current.get("averageValue")) if status.get(field) else "<unknown>"
            return f"{name}: {shown}/{format_quantity(target['averageValue'])}"
        used = current.get("averageUtilization")
        shown = f"{used}%" if status.get(field) and used is not None else "<unknown>"
        wanted = (
            f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
        )
        return f"{name}: {shown}/{wanted}"
    if kind == "Pods":
        current = ((status.get("pods") or {}).get("current") or {}).get("averageValue")
        target = ((spec.get("pods") or {}).get("target") or {}).get("averageValue")
        return f"{_quantity(current) if status.get('pods') else '<unknown>'}/{format_quantity(target)}"
    if kind in ("Object", "External"):
        field = kind.lower()
        target = (spec.get(field) or {}).get("target") or {}
        current = (status.get(field) or {}).get("current") or {}
        if target.get("averageValue") is not None:
            shown = _quantity(current.get("averageValue")) if status.get(field) else "<unknown>"
            return f"{shown}/{format_quantity(target['averageValue'])} (avg)"
        shown = _quantity(current.get("value")) if status.get(field) else "<unknown>"
        return f"{shown}/{format_quantity(target.get('value'))}"
    return "<unknown type>"


def format_metrics(specs: list, statuses: list) -> str:
    if not specs:
        return "<none>"
    shown = [_format_metric(s, statuses[i] if i < len(statuses) else None) for i, s in enumerate(specs)]
    if len(shown) > 2:
        return f"{', '.join(shown[:2])} + {len(shown) - 2} more..."
    return ", ".join(shown)


def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    low = spec.get("minReplicas")
    return [
        obj["metadata"]["name"],
        f"{ref.get('kind', '')}/{ref.get('name', '')}",
        format_metrics(spec.get("metrics") or [], status.get("currentMetrics") or []),
        "<unset>" if low is None else str(low),
        int(spec.get("maxReplicas") or 0),
        int(status.get("currentReplicas") or 0),
        age(obj, now),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Reference", "string", "", 0),
        ("Targets", "string", "", 0),
        ("MinPods", "string", "", 0),
        ("MaxPods", "integer", "", 0),
        ("Replicas", "integer", "", 0),
        AGE_COLUMN,
    ),
    _row,
)

KIND = KindInfo(
    kind="HorizontalPodAutoscaler",
    plural="horizontalpodautoscalers",
    singular="horizontalpodautoscaler",
    group="autoscaling",
    version="v2",
    namespaced=True,
    short_names=("hpa",),
    categories=("all",),
    subresources=(
        Subresource("status", "HorizontalPodAutoscaler", ("get", "patch", "update"), "autoscaling", "v2"),
    ),
    reset_rank=5,  # before what it scales, so that a reset's deletions are not scaled back up
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=hpa_describe.describe,
    conversions=(V1,),
)

"""autoscaling/v1 HorizontalPodAutoscalers from the stored v2 ones and back, as upstream's
pkg/apis/autoscaling/v1/conversion.go converts them: the CPU utilization target is v1's
`targetCPUUtilizationPercentage`; what v1 has no field for (other metrics, their statuses, the
conditions, `behavior`) rides in the `autoscaling.alpha.kubernetes.io/*` annotations, so that an
object read in v1 and written back loses nothing."""

from __future__ import annotations

import copy
import json

from cluster.apiserver.kinds import Conversion

METRICS = "autoscaling.alpha.kubernetes.io/metrics"
CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
ROUND_TRIP = (METRICS, CURRENT_METRICS, CONDITIONS, BEHAVIOR)


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _some(**fields: object) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


def _is_cpu_utilization(metric: dict) -> bool:
    resource = metric.get("resource") or {}
    return (
        metric.get("type") == "Resource"
        and resource.get("name") == "cpu"
        and (resource.get("target") or {}).get("averageUtilization") is not None
    )


# -- MetricSpec / MetricStatus, v2 <-> v1 (the annotations' shape) -------------------------------
def _spec_to_v1(metric: dict) -> dict:
    kind, out = metric.get("type"), {"type": metric.get("type")}
    if kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = metric.get(field) or {}
        target = source.get("target") or {}
        out[field] = _some(
            name=source.get("name"),
            targetAverageUtilization=target.get("averageUtilization"),
            targetAverageValue=target.get("averageValue"),
            container=source.get("container"),
        )
    elif kind == "Pods":
        source = metric.get("pods") or {}
        ident = source.get("metric") or {}
        out["pods"] = _some(
            metricName=ident.get("name"),
            targetAverageValue=(source.get("target") or {}).get("averageValue"),
            selector=ident.get("selector"),
        )
    elif kind == "Object":
        source = metric.get("object") or {}
        ident, target = source.get("metric") or {}, source.get("target") or {}
        out["object"] = _some(
            target=source.get("describedObject"),
            metricName=ident.get("name"),
            targetValue=target.get("value"),
            selector=ident.get("selector"),
            averageValue=target.get("averageValue"),
        )
    elif kind == "External":
        source = metric.get("external") or {}
        ident, target = source.get("metric") or {}, source.get("target") or {}
        out["external"] = _some(
            metricName=ident.get("name"),
            metricSelector=ident.get("selector"),
            targetValue=target.get("value"),
            targetAverageValue=target.get("averageValue"),
        )
    return out


def _spec_from_v1(metric: dict) -> dict:
    kind, out = metric.get("type"), {"type": metric.get("type")}
    if kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source = metric.get(field) or {}
        utilization = source.get("targetAverageUtilization")
        target = (
            {"type": "Utilization", "averageUtilization": utilization}
            if utilization is not None
            else {"type": "AverageValue", "averageValue": source.get("targetAverageValue")}
        )
        out[field] = _some(name=source.get("name"), target=target, container=source.get("container"))
    elif kind == "Pods":
        source = metric.get("pods") or {}
        out["pods"] = {
            "metric": _some(name=source.get("metricName"), selector=source.get("selector")),
            "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue")},
        }
    elif kind == "Object":
        source = metric.get("object") or {}
        target = (
            {"type": "AverageValue", "averageValue": source["averageValue"]}
            if source.get("averageValue") is not None
            else {"type": "Value", "value": source.get("targetValue")}
        )
        out["object"] = {
            "describedObject": source.get("target") or {},
            "metric": _some(name=source.get("metricName"), selector=source.get("selector")),
            "target": target,
        }
    elif kind == "External":
        source = metric.get("external") or {}
        target = (
            {"type": "AverageValue", "averageValue": source["targetAverageValue"]}
            if source.get("targetAverageValue") is not None
            else {"type": "Value", "value": source.get("targetValue")}
        )
        out["external"] = {
            "metric": _some(name=source.get("metricName"), selector=source.get("metricSelector")),
            "target": target,
        }
    return out


def _status_to_v1(status: dict) -> dict:
    kind, out = status.get("type"), {"type": status.get("type")}
    for field, v1_field in (("resource", "resource"), ("containerResource", "containerResource")):
        if kind in ("Resource", "ContainerResource") and status.get(field):
            source, current = status[field], status[field].get("current") or {}
            out[v1_field] = _some(
                name=source.get("name"),
                currentAverageUtilization=current.get("averageUtilization"),
                currentAverageValue=current.get("averageValue"),
                container=source.get("container"),
            )
    for field in ("pods", "object", "external"):
        if status.get(field):
            source, current = status[field], status[field].get("current") or {}
            ident = source.get("metric") or {}
            out[field] = _some(
                metricName=ident.get("name"),
                currentAverageValue=current.get("averageValue") if field != "object" else None,
                currentValue=current.get("value") if field != "pods" else None,
                averageValue=current.get("averageValue") if field == "object" else None,
                target=source.get("describedObject") if field == "object" else None,
                selector=ident.get("selector") if field != "external" else None,
                metricSelector=ident.get("selector") if field == "external" else None,
            )
    return out


def _status_from_v1(status: dict) -> dict:
    kind, out = status.get("type"), {"type": status.get("type")}
    for field in ("resource", "containerResource"):
        if kind in ("Resource", "ContainerResource") and status.get(field):
            source = status[field]
            current = _some(
                averageUtilization=source.get("currentAverageUtilization"),
                averageValue=source.get("currentAverageValue"),
            )
            out[field] = _some(name=source.get("name"), current=current, container=source.get("container"))
    for field in ("pods", "object", "external"):
        if status.get(field):
            source = status[field]
            selector = source.get("metricSelector") if field == "external" else source.get("selector")
            current = _some(
                value=source.get("currentValue"),
                averageValue=source.get("currentAverageValue") or source.get("averageValue"),
            )
            out[field] = _some(
                metric=_some(name=source.get("metricName"), selector=selector),
                current=current,
                describedObject=source.get("target") if field == "object" else None,
            )
    return out


# -- the object ------------------------------------------------------------------------------------
def to_v1(stored: dict) -> dict:
    """Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler."""
    obj = copy.deepcopy(stored)
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    meta = obj.setdefault("metadata", {})
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k not in ROUND_TRIP}
    metrics = spec.pop("metrics", None) or []
    cpu = next((m for m in metrics if _is_cpu_utilization(m)), None)
    others = [_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    if cpu is not None:
        spec["targetCPUUtilizationPercentage"] = cpu["resource"]["target"]["averageUtilization"]
    if others:
        annotations[METRICS] = _dump(others)
    behavior = spec.pop("behavior", None)
    if behavior is not None:
        annotations[BEHAVIOR] = _dump(behavior)
    current = status.pop("currentMetrics", None) or []
    conditions = status.pop("conditions", None) or []
    for metric in current:
        used = ((metric.get("resource") or {}).get("current") or {}).get("averageUtilization")
        if (
            metric.get("type") == "Resource"
            and (metric.get("resource") or {}).get("name") == "cpu"
            and used is not None
        ):
            status["currentCPUUtilizationPercentage"] = used
    if current:
        annotations[CURRENT_METRICS] = _dump([_status_to_v1(m) for m in current])
    if "status" in obj:  # v1's replica counts are not omitempty: Go writes their zeros
        obj["status"] = {
            "currentReplicas": status.get("currentReplicas", 0),
            "desiredReplicas": status.get("desiredReplicas", 0),
            **status,
        }
    if conditions:
        annotations[CONDITIONS] = _dump(conditions)
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    obj["apiVersion"] = "autoscaling/v1"
    return obj


def _annotation(annotations: dict, key: str) -> object:
    try:
        return json.loads(annotations[key])
    except (KeyError, ValueError, TypeError):
        return None


def from_v1(body: dict) -> dict:
    """Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler."""
    obj = copy.deepcopy(body)
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else None
    status = obj.get("status") if isinstance(obj.get("status"), dict) else None
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    if spec is not None:
        cpu = spec.pop("targetCPUUtilizationPercentage", None)
        others = _annotation(annotations, METRICS)
        metrics = (
            [_spec_from_v1(m) for m in others if isinstance(m, dict)] if isinstance(others, list) else []
        )
        if cpu is not None:
            metrics.append(
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}},
                }
            )
        if metrics:
            spec["metrics"] = metrics
        behavior = _annotation(annotations, BEHAVIOR)
        if isinstance(behavior, dict):
            spec["behavior"] = behavior
    if status is not None:
        used = status.pop("currentCPUUtilizationPercentage", None)
        current = _annotation(annotations, CURRENT_METRICS)
        if isinstance(current, list):
            status["currentMetrics"] = [_status_from_v1(m) for m in current if isinstance(m, dict)]
        elif used is not None:
            status["currentMetrics"] = [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": used}}}
            ]
        conditions = _annotation(annotations, CONDITIONS)
        if isinstance(conditions, list):
            status["conditions"] = conditions
    if annotations:
        kept = {k: v for k, v in annotations.items() if k not in ROUND_TRIP}
        if kept:
            meta["annotations"] = kept
        else:
            meta.pop("annotations", None)
    if "apiVersion" in obj:
        obj["apiVersion"] = "autoscaling/v2"
    return obj


V1 = Conversion("v1", to_stored=from_v1, from_stored=to_v1)

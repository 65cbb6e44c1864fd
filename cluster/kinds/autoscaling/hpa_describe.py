"""`kubectl describe hpa` as kubectl v1.33 prints it (describeHorizontalPodAutoscalerV2): the
metrics with their current values, the replicas, `behavior`, the conditions and the Events."""

from __future__ import annotations

from cluster.kubeapi.describe import events_of, object_head, rfc_time, with_events
from k8s import clock
from k8s.quantity import format_quantity


def _q(value: object) -> str:
    return format_quantity(value) if value is not None else "<unknown>"


def _current(statuses: list, i: int, field: str) -> dict | None:
    status = statuses[i] if i < len(statuses) else {}
    return (status.get(field) or {}).get("current") if status.get(field) else None


def _metric(metric: dict, statuses: list, i: int) -> str:
    kind = metric.get("type")
    if kind in ("Resource", "ContainerResource"):
        field = "resource" if kind == "Resource" else "containerResource"
        source, current = metric.get(field) or {}, _current(statuses, i, field)
        target = source.get("target") or {}
        head = f"  resource {source.get('name')} on pods"
        if kind == "ContainerResource":
            head = f'  resource {source.get("name")} of container "{source.get("container")}" on pods'
        if target.get("averageValue") is not None:
            shown = _q((current or {}).get("averageValue")) if current is not None else "<unknown>"
            return f"{head}:\t{shown} / {format_quantity(target['averageValue'])}"
        shown = "<unknown>"
        if current is not None and current.get("averageUtilization") is not None:
            shown = f"{current['averageUtilization']}% ({_q(current.get('averageValue'))})"
        wanted = (
            f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
        )
        return f"{head}  (as a percentage of request):\t{shown} / {wanted}"
    if kind == "Pods":
        source, current = metric.get("pods") or {}, _current(statuses, i, "pods")
        shown = _q((current or {}).get("averageValue")) if current is not None else "<unknown>"
        target = format_quantity((source.get("target") or {}).get("averageValue"))
        return f'  "{(source.get("metric") or {}).get("name")}" on pods:\t{shown} / {target}'
    if kind in ("Object", "External"):
        field = kind.lower()
        source, current = metric.get(field) or {}, _current(statuses, i, field) or {}
        target = source.get("target") or {}
        name = (source.get("metric") or {}).get("name")
        head = f'  "{name}"'
        if kind == "Object":
            described = source.get("describedObject") or {}
            head = f'  "{name}" on {described.get("kind")}/{described.get("name")} '
        else:
            head += " "
        if target.get("averageValue") is not None:
            wanted = format_quantity(target["averageValue"])
            return f"{head}(target average value):\t{_q(current.get('averageValue'))} / {wanted}"
        return f"{head}(target value):\t{_q(current.get('value'))} / {format_quantity(target.get('value'))}"
    return f'  <unknown metric type "{kind}">'


def _direction(title: str, rules: object) -> list[str]:
    """printDirectionBehavior."""
    if not isinstance(rules, dict):
        return []
    lines = [f"  {title}:"]
    if rules.get("stabilizationWindowSeconds") is not None:
        lines.append(f"    Stabilization Window: {rules['stabilizationWindowSeconds']} seconds")
    policies = rules.get("policies") or []
    if policies:
        lines.append(f"    Select Policy: {rules.get('selectPolicy') or 'Max'}")
        lines.append("    Policies:")
        for p in policies:
            period = f"{p.get('periodSeconds')} seconds"
            lines.append(f"      - Type: {p.get('type')}\tValue: {p.get('value')}\tPeriod: {period}")
    return lines


def describe_lines(hpa: dict) -> list[str]:
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    ref, statuses = spec.get("scaleTargetRef") or {}, status.get("currentMetrics") or []
    lines = [
        *object_head(hpa),
        f"CreationTimestamp:\t{rfc_time(hpa['metadata'].get('creationTimestamp'))}",
        f"Reference:\t{ref.get('kind')}/{ref.get('name')}",
        "Metrics:\t( current / target )",
        *(_metric(m, statuses, i) for i, m in enumerate(spec.get("metrics") or [])),
        f"Min replicas:\t{spec['minReplicas'] if spec.get('minReplicas') is not None else '<unset>'}",
        f"Max replicas:\t{spec.get('maxReplicas', 0)}",
    ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        lines += [
            "Behavior:",
            *_direction("Scale Up", behavior.get("scaleUp")),
            *_direction("Scale Down", behavior.get("scaleDown")),
        ]
    counts = f"{status.get('currentReplicas', 0)} current / {status.get('desiredReplicas', 0)} desired"
    lines.append(f"{ref.get('kind')} pods:\t{counts}")
    conditions = status.get("conditions") or []
    if conditions:
        lines += ["Conditions:", "  Type\tStatus\tReason\tMessage", "  ----\t------\t------\t-------"]
        lines += [
            f"  {c.get('type')}\t{c.get('status')}\t{c.get('reason')}\t{c.get('message')}" for c in conditions
        ]
    return lines


def describe(read, namespace: str, name: str) -> str:
    hpa = read.get("HorizontalPodAutoscaler", namespace, name)
    return with_events(describe_lines(hpa), events_of(read, hpa), clock.now())

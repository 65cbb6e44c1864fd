"""PodDisruptionBudget as kubectl shows it: `get pdb` (printPodDisruptionBudget) and `describe pdb`
(describePodDisruptionBudget), v1.33."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.kubeapi.describe import _with_events, events_of
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s.selectors import format_label_selector

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
    return _with_events(describe_lines(pdb), events_of(read.cluster, pdb), datetime.now(UTC))

"""What `kubectl describe` of workloads shares (describe.go's DescribePodTemplate and
getPodStatusForController, the conditions table, "Controlled By")."""

from __future__ import annotations

from cluster.kubeapi.describe_parts import (
    _container,
    annotations_multiline,
    labels_multiline,
    tolerations_multiline,
    topology_spread,
    volumes,
)


def _indented(lines: list[str]) -> list[str]:
    return [f"  {line}" for line in lines]


def pod_template(template: dict | None) -> list[str]:
    """DescribePodTemplate: the template's sections, each two spaces in."""
    lines = ["Pod Template:"]
    if template is None:
        return [*lines, "  <unset>"]
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    lines += labels_multiline("  Labels", meta.get("labels"))
    if meta.get("annotations"):
        lines += annotations_multiline("  Annotations", meta.get("annotations"))
    if spec.get("serviceAccountName"):
        lines.append(f"  Service Account:\t{spec['serviceAccountName']}")
    for label, key in (("Init Containers", "initContainers"), ("Containers", "containers")):
        specs = spec.get(key) or []
        if key == "initContainers" and not specs:
            continue
        lines.append(f"  {label}:" if specs else f"  {label}: <none>")
        for container in specs:
            own = _container(container, None)
            lines += [f" {own[0]}", *own[1:]]  # describeContainers(..., "  "): "   nginx:"
    lines += _indented(volumes(spec.get("volumes")))
    lines += _indented(topology_spread(spec.get("topologySpreadConstraints")))
    if spec.get("priorityClassName"):
        lines.append(f"  Priority Class Name:\t{spec['priorityClassName']}")
    lines += labels_multiline("  Node-Selectors", spec.get("nodeSelector"))
    tolerations = tolerations_multiline(spec.get("tolerations"))
    lines += [f"  {tolerations[0]}", *tolerations[1:]]
    return lines


def pods_status(pods: list[dict]) -> str:
    """getPodStatusForController: the controller's pods by phase."""
    phases = [(p.get("status") or {}).get("phase", "Pending") for p in pods]
    running, waiting = phases.count("Running"), phases.count("Pending")
    succeeded, failed = phases.count("Succeeded"), phases.count("Failed")
    return f"{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed"


def conditions(status: dict) -> list[str]:
    conditions = status.get("conditions") or []
    if not conditions:
        return []
    lines = ["Conditions:", "  Type\tStatus\tReason", "  ----\t------\t------"]
    return lines + [f"  {c.get('type')} \t{c.get('status')}\t{c.get('reason', '')}" for c in conditions]


def controlled_by(meta: dict) -> list[str]:
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    return [f"Controlled By:\t{owner.get('kind')}/{owner.get('name')}"] if owner else []

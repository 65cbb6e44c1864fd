"""`kubectl describe` for ReplicationControllers, ReplicaSets, Deployments and Namespaces, in
kubectl's layout (describe.go's describers and DescribePodTemplate)."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.kubeapi.describe_parts import (
    RFC1123Z,
    _container,
    annotations_multiline,
    labels_multiline,
    tolerations_multiline,
    topology_spread,
    volumes,
)
from cluster.kubeapi.humanize import parse_time
from cluster.kubeapi.tabwriter import tabwrite
from k8s.selectors import format_label_selector


def _time(value: str | None) -> str:
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "Mon, 01 Jan 0001 00:00:00 +0000"


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


def _conditions(status: dict) -> list[str]:
    conditions = status.get("conditions") or []
    if not conditions:
        return []
    lines = ["Conditions:", "  Type\tStatus\tReason", "  ----\t------\t------"]
    return lines + [f"  {c.get('type')} \t{c.get('status')}\t{c.get('reason', '')}" for c in conditions]


def _controlled_by(meta: dict) -> list[str]:
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    return [f"Controlled By:\t{owner.get('kind')}/{owner.get('name')}"] if owner else []


def describe_replication_controller(rc: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = rc.get("metadata") or {}, rc.get("spec") or {}, rc.get("status") or {}
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items()))
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{selector}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    lines.append(f"Pods Status:\t{pods_status(pods)}")
    return lines + pod_template(spec.get("template")) + _conditions(status)


def describe_replica_set(rs: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = rs.get("metadata") or {}, rs.get("spec") or {}, rs.get("status") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'))}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += _controlled_by(meta)
    lines.append(f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    lines.append(f"Pods Status:\t{pods_status(pods)}")
    return lines + pod_template(spec.get("template")) + _conditions(status)


def _replica_sets_text(sets: list[dict]) -> str:
    """printReplicaSetsByLabels."""
    if not sets:
        return "<none>"
    return ", ".join(
        f"{rs['metadata']['name']} ({(rs.get('status') or {}).get('replicas', 0)}/"
        f"{(rs.get('spec') or {}).get('replicas', 1)} replicas created)"
        for rs in sets
    )


def describe_deployment(deployment: dict, old_sets: list[dict], new_set: dict | None) -> list[str]:
    meta, spec = deployment.get("metadata") or {}, deployment.get("spec") or {}
    status = deployment.get("status") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"CreationTimestamp:\t{_time(meta.get('creationTimestamp'))}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'))}")
    lines.append(
        f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)} updated | "
        f"{status.get('replicas', 0)} total | {status.get('availableReplicas', 0)} available | "
        f"{status.get('unavailableReplicas', 0)} unavailable"
    )
    strategy = spec.get("strategy") or {}
    lines.append(f"StrategyType:\t{strategy.get('type', 'RollingUpdate')}")
    lines.append(f"MinReadySeconds:\t{spec.get('minReadySeconds', 0)}")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        lines.append(
            f"RollingUpdateStrategy:\t{rolling.get('maxUnavailable', '25%')} max unavailable, "
            f"{rolling.get('maxSurge', '25%')} max surge"
        )
    lines += pod_template(spec.get("template")) + _conditions(status)
    lines.append(f"OldReplicaSets:\t{_replica_sets_text(old_sets)}")
    lines.append(f"NewReplicaSet:\t{_replica_sets_text([new_set] if new_set else [])}")
    return lines


def describe_namespace(namespace: dict) -> str:
    meta, status = namespace.get("metadata") or {}, namespace.get("status") or {}
    lines = [f"Name:\t{meta.get('name', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Status:\t{status.get('phase', 'Active')}")
    # kubectl adds the quota and LimitRange sections only when it can list them: KubeSim serves
    # neither resource, so real kubectl prints none against it either.
    return tabwrite("\n".join(lines) + "\n")


def now() -> datetime:
    return datetime.now(UTC)


# -- kubectl's generic describer (kinds without their own: Events, Leases) ----------------------
_ACRONYMS = {"API", "URL", "UID", "OSB", "GUID"}
_SKIPPED = {".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels"}
_SKIPPED |= {".metadata.annotations"}


def _camel_parts(field: str) -> list[str]:
    parts: list[str] = []
    for ch in field:
        if parts and not (ch.isupper() and not parts[-1][-1].isupper()):
            if ch.isupper() and len(parts[-1]) > 1 and parts[-1].isupper():
                parts[-1] += ch
                continue
            if ch.islower() and len(parts[-1]) > 1 and parts[-1].isupper():
                # "APIVersion": the last capital starts the next word
                parts.append(parts[-1][-1] + ch)
                parts[-2] = parts[-2][:-1]
                continue
            parts[-1] += ch
        else:
            parts.append(ch)
    return [p for p in parts if p]


def smart_label(field: str) -> str:
    """smartLabelFor: "apiVersion" -> "API Version"; a field with other than letters and '-' as is."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    words = [p.upper() if p.upper() in _ACRONYMS else p[:1].upper() + p[1:] for p in _camel_parts(field)]
    return " ".join(words)


def _go_value(value) -> str:
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def unstructured(content: dict, level: int = 0, prefix: str = "") -> list[str]:
    """printUnstructuredContent: every field, sorted, nested maps and lists indented by level."""
    lines: list[str] = []
    pad = "  " * level
    for field in sorted(content):
        value, path = content[field], f"{prefix}.{field}"
        if path in _SKIPPED:
            continue
        if isinstance(value, dict):
            lines.append(f"{pad}{smart_label(field)}:")
            lines += unstructured(value, level + 1, path)
        elif isinstance(value, list):
            lines.append(f"{pad}{smart_label(field)}:")
            for child in value:
                if isinstance(child, dict):
                    lines += unstructured(child, level + 1, path)
                else:
                    lines.append(f"{'  ' * (level + 1)}{_go_value(child)}")
        else:
            lines.append(f"{pad}{smart_label(field)}:\t{_go_value(value)}")
    return lines


def describe_generic(obj: dict) -> list[str]:
    meta = obj.get("metadata") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    return lines + unstructured(obj)

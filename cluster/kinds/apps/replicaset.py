"""ReplicaSets (apps/v1, `replicasets`, short name `rs`): upstream `pkg/registry/apps/replicaset`,
SetDefaults_ReplicaSet, ValidateReplicaSet, the printer's columns and `kubectl describe rs`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.kinds import KindInfo, scale_subresource, status_subresource
from cluster.kinds.apps.validation import validate_workload
from cluster.kinds.core import kubesystem, replicationcontroller
from cluster.kinds.core.podspec import template_defaults
from cluster.kubeapi.describe import events_of, owned, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import conditions, controlled_by, pod_template, pods_status
from cluster.kubeapi.tables import TableSpec
from k8s import clock
from k8s.labels import format_label_selector


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict):
        if spec.get("replicas") is None:  # null is Go's nil *int32: defaulted as if absent
            spec["replicas"] = 1
        spec.setdefault("minReadySeconds", 0)
        template_defaults(spec)
    obj.setdefault("status", {}).setdefault("replicas", 0)


def _row(obj: dict, now: datetime) -> list:
    """A ReplicationController's row with the set-based selector."""
    row = replicationcontroller.row(obj, now)
    row[-1] = format_label_selector((obj.get("spec") or {}).get("selector"))
    return row


TABLE = TableSpec(replicationcontroller.COLUMNS, _row)


def describe_replica_set(rs: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = rs.get("metadata") or {}, rs.get("spec") or {}, rs.get("status") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'))}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += controlled_by(meta)
    lines.append(f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    lines.append(f"Pods Status:\t{pods_status(pods)}")
    return lines + pod_template(spec.get("template")) + conditions(status)


def describe(read, namespace: str, name: str) -> str:
    rs = read.get("ReplicaSet", namespace or "default", name)
    lines = describe_replica_set(rs, owned(read, "Pod", rs))
    return with_events(lines, events_of(read, rs), clock.now())


KIND = KindInfo(
    kind="ReplicaSet",
    plural="replicasets",
    singular="replicaset",
    group="apps",
    version="v1",
    namespaced=True,
    short_names=("rs",),
    categories=("all",),
    subresources=(scale_subresource(), status_subresource("ReplicaSet", "apps")),
    field_selectors=("status.replicas",),
    workload=True,
    reset_rank=20,  # before ReplicationControllers and Pods: it owns pods
    defaults=defaults,
    validate=validate_workload,
    table=TABLE,
    describe=describe,
    builtins=kubesystem.builtin_objects("ReplicaSet", "replicasets"),
)

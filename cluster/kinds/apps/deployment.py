"""Deployments (apps/v1, `deployments`, short name `deploy`): upstream
`pkg/registry/apps/deployment`, SetDefaults_Deployment, ValidateDeployment, the printer's columns
and `kubectl describe deployment`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, scale_subresource, status_subresource
from cluster.controllers.deployment import util
from cluster.kinds.apps.validation import validate_workload
from cluster.kinds.core import kubesystem
from cluster.kinds.core.podspec import template_defaults
from cluster.kubeapi.describe import events_of, go_time, owned, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import conditions, pod_template
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s import clock
from k8s.labels import format_label_selector


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if spec.get("replicas") is None:  # null is Go's nil *int32: defaulted as if absent
        spec["replicas"] = 1
    strategy = spec.setdefault("strategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", "25%")
                rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    spec.setdefault("minReadySeconds", 0)
    template_defaults(spec)
    obj.setdefault("status", {})


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validate_workload(errors, obj, old)
    spec = obj.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("template"), dict):
        return
    strategy = spec.get("strategy") or {}
    kind = strategy.get("type") if isinstance(strategy, dict) else strategy
    if kind not in (None, "RollingUpdate", "Recreate"):
        errors.not_supported("spec.strategy.type", kind, ("Recreate", "RollingUpdate"))


# -- kubectl get ----------------------------------------------------------------------------------
COLUMNS = (
    NAME_COLUMN,
    ("Ready", "string", "", 0),
    ("Up-to-date", "integer", "", 0),
    ("Available", "integer", "", 0),
    AGE_COLUMN,
    *CONTAINERS_IMAGES_SELECTOR,
)


def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    selector = format_label_selector(spec.get("selector"), empty="")
    return [
        obj["metadata"]["name"],
        f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
        status.get("updatedReplicas", 0),
        status.get("availableReplicas", 0),
        age(obj, now),
        *containers_images(spec.get("template")),
        selector,
    ]


TABLE = TableSpec(COLUMNS, _row)


# -- kubectl describe -----------------------------------------------------------------------------
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
    lines.append(f"CreationTimestamp:\t{go_time(meta.get('creationTimestamp'))}")
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
    lines += pod_template(spec.get("template")) + conditions(status)
    lines.append(f"OldReplicaSets:\t{_replica_sets_text(old_sets)}")
    lines.append(f"NewReplicaSet:\t{_replica_sets_text([new_set] if new_set else [])}")
    return lines


def describe(read, namespace: str, name: str) -> str:
    deployment = read.get("Deployment", namespace or "default", name)
    # kubectl's GetAllReplicaSetsInChunks: sorted by creation, the new one by its template, every
    # other one old (those scaled to 0 too)
    sets = util.by_creation(owned(read, "ReplicaSet", deployment))
    new = util.find_new_replica_set(deployment, sets)
    old = [rs for rs in sets if rs is not new]
    lines = describe_deployment(deployment, old, new)
    return with_events(lines, events_of(read, deployment), clock.now())


KIND = KindInfo(
    kind="Deployment",
    plural="deployments",
    singular="deployment",
    group="apps",
    version="v1",
    namespaced=True,
    short_names=("deploy",),
    categories=("all",),
    subresources=(scale_subresource(), status_subresource("Deployment", "apps")),
    status_metadata=("annotations",),  # deploymentStatusStrategy keeps spec and labels only
    workload=True,
    reset_rank=10,  # first: it owns ReplicaSets
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=kubesystem.builtin_objects("Deployment", "deployments"),
)

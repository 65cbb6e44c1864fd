"""DaemonSets (apps/v1, `daemonsets`, short name `ds`): upstream `pkg/registry/apps/daemonset`,
SetDefaults_DaemonSet, ValidateDaemonSet, the printer's columns and `kubectl describe ds`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kinds.apps.validation import validate_workload
from cluster.kinds.core import kubesystem
from cluster.kinds.core.podspec import ensure_template, validate_restart_policy
from cluster.kubeapi.describe import events_of, owned, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import pod_template, pods_status
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s import clock
from k8s.labels import format_label_selector, format_labels


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", 1)
                rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    ensure_template(spec)
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        for key in ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"):
            status.setdefault(key, 0)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validate_workload(errors, obj, old)
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    validate_restart_policy(errors, spec, ("Always",))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") if isinstance(strategy, dict) else strategy
    if kind not in ("RollingUpdate", "OnDelete"):
        errors.not_supported("spec.updateStrategy.type", kind, ("OnDelete", "RollingUpdate"))


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    template = spec.get("template") or {}
    return [
        obj["metadata"]["name"],
        status.get("desiredNumberScheduled", 0),
        status.get("currentNumberScheduled", 0),
        status.get("numberReady", 0),
        status.get("updatedNumberScheduled", 0),
        status.get("numberAvailable", 0),
        format_labels((template.get("spec") or {}).get("nodeSelector")),
        age(obj, now),
        *containers_images(template),
        format_label_selector(spec.get("selector")),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Desired", "integer", "", 0),
        ("Current", "integer", "", 0),
        ("Ready", "integer", "", 0),
        ("Up-to-date", "integer", "", 0),
        ("Available", "integer", "", 0),
        ("Node Selector", "string", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_daemon_set(ds: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = ds["metadata"], ds.get("spec") or {}, ds.get("status") or {}
    template = spec.get("template") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'), empty='')}")
    lines.append(f"Node-Selector:\t{format_labels((template.get('spec') or {}).get('nodeSelector'))}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += [
        f"Desired Number of Nodes Scheduled: {status.get('desiredNumberScheduled', 0)}",
        f"Current Number of Nodes Scheduled: {status.get('currentNumberScheduled', 0)}",
        f"Number of Nodes Scheduled with Up-to-date Pods: {status.get('updatedNumberScheduled', 0)}",
        f"Number of Nodes Scheduled with Available Pods: {status.get('numberAvailable', 0)}",
        f"Number of Nodes Misscheduled: {status.get('numberMisscheduled', 0)}",
        f"Pods Status:\t{pods_status(pods)}",
    ]
    return lines + pod_template(template)


def describe(read, namespace: str, name: str) -> str:
    ds = read.get("DaemonSet", namespace, name)
    lines = describe_daemon_set(ds, owned(read, "Pod", ds))
    return with_events(lines, events_of(read, ds), clock.now())


KIND = KindInfo(
    kind="DaemonSet",
    plural="daemonsets",
    singular="daemonset",
    group="apps",
    version="v1",
    namespaced=True,
    short_names=("ds",),
    categories=("all",),
    subresources=(status_subresource("DaemonSet", "apps"),),
    workload=True,
    reset_rank=20,  # before Pods: it owns pods
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=kubesystem.builtin_objects("DaemonSet", "daemonsets"),
)

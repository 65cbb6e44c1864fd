"""ReplicationControllers (core/v1, `replicationcontrollers`, short name `rc`): upstream
`pkg/registry/core/replicationcontroller`, SetDefaults_ReplicationController,
ValidateReplicationController, the printer's columns and `kubectl describe rc`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, scale_subresource, status_subresource
from cluster.apiserver.validation import INT32_MAX
from cluster.kinds.core.podspec import template_defaults, template_labels, validate_pod_spec
from cluster.kubeapi.describe import events_of, owned, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import conditions, pod_template, pods_status
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s import clock
from k8s.labels import format_labels


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if spec.get("replicas") is None:  # null is Go's nil *int32: defaulted as if absent
        spec["replicas"] = 1
    spec.setdefault("minReadySeconds", 0)
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if labels and not spec.get("selector"):
        spec["selector"] = dict(labels)
    if labels and not obj["metadata"].get("labels"):
        obj["metadata"]["labels"] = dict(labels)
    template_defaults(spec)
    obj.setdefault("status", {}).setdefault("replicas", 0)


def validate_replicas(errors: FieldErrors, spec: dict) -> None:
    """ValidateNonnegativeField on an int32: below 0 or above 2147483647 is 422 Invalid."""
    replicas = spec.get("replicas")
    if replicas is None:
        return
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        errors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")
    elif replicas > INT32_MAX:
        errors.invalid("spec.replicas", replicas, f"must be less than or equal to {INT32_MAX}")


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    validate_replicas(errors, spec)
    selector = spec.get("selector")
    if not selector:
        errors.required("spec.selector")
    else:
        errors.labels("spec.selector", selector)
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.required("spec.template")
        return
    labels = template_labels(template)
    errors.labels("spec.template.metadata.labels", labels)
    if isinstance(selector, dict) and any(labels.get(k) != v for k, v in selector.items()):
        errors.invalid("spec.template.metadata.labels", labels, "selector does not match template labels")
    validate_pod_spec(errors, "spec.template.spec", template.get("spec"))
    if (template.get("spec") or {}).get("restartPolicy", "Always") != "Always":
        errors.not_supported(
            "spec.template.spec.restartPolicy", template["spec"]["restartPolicy"], ("Always",)
        )


# -- kubectl get ----------------------------------------------------------------------------------
# Shared with ReplicaSets, whose printer has the same columns.
COLUMNS = (
    NAME_COLUMN,
    ("Desired", "integer", "", 0),
    ("Current", "integer", "", 0),
    ("Ready", "integer", "", 0),
    AGE_COLUMN,
    *CONTAINERS_IMAGES_SELECTOR,
)


def row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        obj["metadata"]["name"],
        spec.get("replicas", 1),
        status.get("replicas", 0),
        status.get("readyReplicas", 0),
        age(obj, now),
        *containers_images(spec.get("template")),
        format_labels(spec.get("selector")),
    ]


TABLE = TableSpec(COLUMNS, row)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_replication_controller(rc: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = rc.get("metadata") or {}, rc.get("spec") or {}, rc.get("status") or {}
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items()))
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{selector}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Replicas:\t{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    lines.append(f"Pods Status:\t{pods_status(pods)}")
    return lines + pod_template(spec.get("template")) + conditions(status)


def describe(read, namespace: str, name: str) -> str:
    rc = read.get("ReplicationController", namespace or "default", name)
    lines = describe_replication_controller(rc, owned(read, "Pod", rc))
    return with_events(lines, events_of(read, rc), clock.now())


KIND = KindInfo(
    kind="ReplicationController",
    plural="replicationcontrollers",
    singular="replicationcontroller",
    group="",
    version="v1",
    namespaced=True,
    short_names=("rc",),
    categories=("all",),
    subresources=(scale_subresource(), status_subresource("ReplicationController")),
    field_selectors=("status.replicas",),
    workload=True,
    reset_rank=30,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

"""StatefulSets (apps/v1, `statefulsets`, short name `sts`): upstream
`pkg/registry/apps/statefulset`, SetDefaults_StatefulSet, ValidateStatefulSet(Update),
printStatefulSet and `kubectl describe sts`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, scale_subresource, status_subresource
from cluster.kinds.core.podspec import template_defaults, template_labels
from cluster.kinds.core.replicationcontroller import validate_replicas
from cluster.kubeapi.describe import events_of, go_time, owned, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import pod_template, pods_status
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age, containers_images
from k8s import clock
from k8s.labels import SelectorError, format_label_selector, label_selector

ORDERED_READY, PARALLEL = "OrderedReady", "Parallel"
ROLLING_UPDATE, ON_DELETE = "RollingUpdate", "OnDelete"
RETAIN, DELETE = "Retain", "Delete"
# ValidateStatefulSetUpdate: what an update may change in the spec.
MUTABLE = (
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
)
IMMUTABLE_MESSAGE = (
    "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
    "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
    "'minReadySeconds' are forbidden"
)


def defaults(obj: dict) -> None:
    """SetDefaults_StatefulSet, and the claim templates' PersistentVolumeClaim defaults."""
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("podManagementPolicy", ORDERED_READY)
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = ROLLING_UPDATE
            strategy.setdefault("rollingUpdate", {})
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == ROLLING_UPDATE and isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
    policy = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
    if isinstance(policy, dict):
        policy.setdefault("whenDeleted", RETAIN)
        policy.setdefault("whenScaled", RETAIN)
    if spec.get("replicas") is None:  # null is Go's nil *int32: defaulted as if absent
        spec["replicas"] = 1
    spec.setdefault("revisionHistoryLimit", 10)
    template_defaults(spec)
    for claim in spec.get("volumeClaimTemplates") or []:
        if isinstance(claim, dict):
            claim_spec = claim.setdefault("spec", {})
            if isinstance(claim_spec, dict):
                claim_spec.setdefault("volumeMode", "Filesystem")
            status = claim.setdefault("status", {})
            if isinstance(status, dict):
                status.setdefault("phase", "Pending")
    obj.setdefault("status", {"replicas": 0, "availableReplicas": 0})


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    _validate_spec(errors, spec)
    if old is not None:
        old_spec = old.get("spec") or {}
        if {k: v for k, v in spec.items() if k not in MUTABLE} != {
            k: v for k, v in old_spec.items() if k not in MUTABLE
        }:
            errors.forbidden("spec", IMMUTABLE_MESSAGE)


def _validate_spec(errors: FieldErrors, spec: dict) -> None:
    """ValidateStatefulSetSpec (the pod spec itself is not validated here, as upstream: a bad
    one fails at the pods' creation, in the StatefulSet's FailedCreate events)."""
    policy = spec.get("podManagementPolicy")
    if not policy:
        errors.required("spec.podManagementPolicy")
    elif policy not in (ORDERED_READY, PARALLEL):
        errors.invalid("spec.podManagementPolicy", policy, f"must be '{ORDERED_READY}' or '{PARALLEL}'")
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") if isinstance(strategy, dict) else None
    rolling = strategy.get("rollingUpdate") if isinstance(strategy, dict) else None
    if not kind:
        errors.required("spec.updateStrategy")
    elif kind == ON_DELETE:
        if rolling is not None:
            errors.invalid(
                "spec.updateStrategy.rollingUpdate",
                rolling,
                f"only allowed for updateStrategy '{ROLLING_UPDATE}'",
            )
    elif kind == ROLLING_UPDATE:
        partition = (rolling or {}).get("partition", 0) if isinstance(rolling, dict) else 0
        _nonnegative(errors, "spec.updateStrategy.rollingUpdate.partition", partition)
    else:
        errors.invalid("spec.updateStrategy", strategy, f"must be '{ROLLING_UPDATE}' or '{ON_DELETE}'")
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for field in ("whenDeleted", "whenScaled"):
            if retention.get(field) not in (RETAIN, DELETE):
                errors.not_supported(
                    f"spec.persistentVolumeClaimRetentionPolicy.{field}",
                    retention.get(field),
                    (RETAIN, DELETE),
                )
    validate_replicas(errors, spec)
    _nonnegative(errors, "spec.minReadySeconds", spec.get("minReadySeconds", 0))
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict):
        _nonnegative(errors, "spec.ordinals.start", ordinals.get("start", 0))
    selector = spec.get("selector")
    match = None
    if selector is None:
        errors.required("spec.selector")
    elif not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        errors.invalid("spec.selector", selector, "empty selector is invalid for statefulset")
    else:
        errors.labels("spec.selector.matchLabels", selector.get("matchLabels"))
        try:
            match = label_selector(selector)
        except SelectorError as err:
            errors.invalid("spec.selector", selector, str(err))
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.required("spec.template")
        return
    labels = template_labels(template)
    if match is not None and not match(labels):
        errors.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")
    errors.labels("spec.template.labels", labels)
    pod_spec = template.get("spec") or {}
    if pod_spec.get("restartPolicy") != "Always":
        errors.not_supported("spec.template.spec.restartPolicy", pod_spec.get("restartPolicy"), ("Always",))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errors.forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in StatefulSet is not Supported",
        )


def _nonnegative(errors: FieldErrors, path: str, value: object) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        errors.invalid(path, value, "must be greater than or equal to 0")


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        obj["metadata"]["name"],
        f"{status.get('readyReplicas', 0)}/{spec.get('replicas', 1)}",
        age(obj, now),
        *containers_images(spec.get("template")),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Ready", "string", "", 0),
        AGE_COLUMN,
        ("Containers", "string", "", 1),
        ("Images", "string", "", 1),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def _claim_templates(templates: list[dict]) -> list[str]:
    """describeVolumeClaimTemplates."""
    if not templates:
        return ["Volume Claims:\t<none>"]
    lines = ["Volume Claims:"]
    for claim in templates:
        meta, spec = claim.get("metadata") or {}, claim.get("spec") or {}
        storage_class = (meta.get("annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
        if storage_class is None:
            storage_class = spec.get("storageClassName") or ""
        capacity = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
        lines.append(f"  Name:\t{meta.get('name', '')}")
        lines.append(f"  StorageClass:\t{storage_class}")
        lines += labels_multiline("  Labels", meta.get("labels"))
        lines += annotations_multiline("  Annotations", meta.get("annotations"))
        lines.append(f"  Capacity:\t{capacity if capacity is not None else '<default>'}")
        lines.append(f"  Access Modes:\t[{' '.join(spec.get('accessModes') or [])}]")
    return lines


def describe_stateful_set(sts: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = sts["metadata"], sts.get("spec") or {}, sts.get("status") or {}
    lines = [
        f"Name:\t{meta['name']}",
        f"Namespace:\t{meta.get('namespace', '')}",
        f"CreationTimestamp:\t{go_time(meta.get('creationTimestamp'))}",
        f"Selector:\t{format_label_selector(spec.get('selector'))}",
    ]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Replicas:\t{spec.get('replicas', 1)} desired | {status.get('replicas', 0)} total")
    strategy = spec.get("updateStrategy") or {}
    lines.append(f"Update Strategy:\t{strategy.get('type', '')}")
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict) and rolling.get("partition") is not None:
        lines.append(f"  Partition:\t{rolling['partition']}")
    lines.append(f"Pods Status:\t{pods_status(pods)}")
    return (
        lines + pod_template(spec.get("template")) + _claim_templates(spec.get("volumeClaimTemplates") or [])
    )


def describe(read, namespace: str, name: str) -> str:
    sts = read.get("StatefulSet", namespace or "default", name)
    lines = describe_stateful_set(sts, owned(read, "Pod", sts))
    return with_events(lines, events_of(read, sts), clock.now())


KIND = KindInfo(
    kind="StatefulSet",
    plural="statefulsets",
    singular="statefulset",
    group="apps",
    version="v1",
    namespaced=True,
    short_names=("sts",),
    categories=("all",),
    subresources=(scale_subresource(), status_subresource("StatefulSet", "apps")),
    workload=True,
    reset_rank=20,  # before Pods: it owns pods
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)

"""Per-kind validation (ValidatePod, ValidateReplicationController, ...) on create and update."""

from __future__ import annotations

from cluster.apiserver.errors import Cause
from cluster.apiserver.fielderrors import FieldErrors, label_value_errors
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.validation import container, metadata, resource_list
from k8s.labels import SelectorError, label_selector

_RESTART = ("Always", "OnFailure", "Never")
_DNS = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
# ValidatePodUpdate: the only spec fields a pod update may change.
_POD_MUTABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
    "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
    "previously negative)"
)


def _tolerations(errors: FieldErrors, path: str, tolerations: object) -> None:
    if tolerations is None:
        return
    if not isinstance(tolerations, list):
        errors.type_error(path, tolerations, "a list")
        return
    for i, t in enumerate(tolerations):
        where = f"{path}[{i}]"
        if not isinstance(t, dict):
            errors.type_error(where, t, "an object")
            continue
        if t.get("key"):
            errors.label_key(f"{where}.key", t["key"])
        operator = t.get("operator") or "Equal"
        if operator == "Equal" and isinstance(t.get("value"), str) and label_value_errors(t["value"]):
            # validateTolerations reports a bad value on the operator's path, as upstream does.
            errors.invalid(f"{where}.operator", t["value"], ";".join(label_value_errors(t["value"])))
        if operator not in ("Equal", "Exists"):
            errors.not_supported(f"{where}.operator", operator, ("Equal", "Exists"))
        elif operator == "Exists" and t.get("value"):
            errors.invalid(f"{where}.operator", t["value"], "value must be empty when `operator` is 'Exists'")
        elif not t.get("key") and operator == "Equal":
            errors.invalid(f"{where}.operator", operator, "operator must be Exists when `key` is empty")
        if t.get("effect") and t["effect"] not in _EFFECTS:
            errors.not_supported(f"{where}.effect", t["effect"], _EFFECTS)


def pod_spec(errors: FieldErrors, path: str, spec: object) -> None:
    if not isinstance(spec, dict):
        errors.type_error(path, spec, "an object")
        return
    containers = spec.get("containers")
    if not containers:
        errors.required(f"{path}.containers")
    seen: set = set()
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            errors.type_error(f"{path}.{key}", items, "a list")
            continue
        for i, c in enumerate(items):
            container(errors, f"{path}.{key}[{i}]", c, seen)
    if spec.get("restartPolicy") not in (None, *_RESTART):
        errors.not_supported(f"{path}.restartPolicy", spec["restartPolicy"], _RESTART)
    if spec.get("dnsPolicy") not in (None, *_DNS):
        errors.not_supported(f"{path}.dnsPolicy", spec["dnsPolicy"], _DNS)
    if spec.get("nodeName"):
        if isinstance(spec["nodeName"], str):
            errors.dns_subdomain(f"{path}.nodeName", spec["nodeName"])
        else:
            errors.invalid(f"{path}.nodeName", spec["nodeName"], "must be a string")
    errors.labels(f"{path}.nodeSelector", spec.get("nodeSelector"))
    _tolerations(errors, f"{path}.tolerations", spec.get("tolerations"))
    resource_list(errors, f"{path}.overhead", spec.get("overhead"))
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
        errors.invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be an integer")


def _pod(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    pod_spec(errors, "spec", obj.get("spec"))
    if old is not None and not errors and _pod_spec_changed(old.get("spec") or {}, obj.get("spec") or {}):
        errors.forbidden("spec", _POD_MUTABLE)


def _pod_spec_changed(old: dict, new: dict) -> bool:
    """True when `new` changes anything but images, activeDeadlineSeconds and added tolerations."""

    def strip(spec: dict) -> dict:
        spec = dict(spec)
        for key in ("containers", "initContainers"):
            spec[key] = [{**c, "image": None} for c in spec.get(key) or [] if isinstance(c, dict)]
        spec.pop("activeDeadlineSeconds", None)
        spec.pop("tolerations", None)
        return spec

    old_tolerations = old.get("tolerations") or []
    kept = all(t in (new.get("tolerations") or []) for t in old_tolerations)
    return strip(old) != strip(new) or not kept


INT32_MAX = 2**31 - 1


def _replicas(errors: FieldErrors, spec: dict) -> None:
    """ValidateNonnegativeField on an int32: below 0 or above 2147483647 is 422 Invalid."""
    replicas = spec.get("replicas")
    if replicas is None:
        return
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        errors.invalid("spec.replicas", replicas, "must be greater than or equal to 0")
    elif replicas > INT32_MAX:
        errors.invalid("spec.replicas", replicas, f"must be less than or equal to {INT32_MAX}")


def _template_labels(template: dict) -> dict:
    labels = (template.get("metadata") or {}).get("labels") or {}
    return labels if isinstance(labels, dict) else {}


def _replication_controller(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    _replicas(errors, spec)
    selector = spec.get("selector")
    if not selector:
        errors.required("spec.selector")
    else:
        errors.labels("spec.selector", selector)
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.required("spec.template")
        return
    labels = _template_labels(template)
    errors.labels("spec.template.metadata.labels", labels)
    if isinstance(selector, dict) and any(labels.get(k) != v for k, v in selector.items()):
        errors.invalid("spec.template.metadata.labels", labels, "selector does not match template labels")
    pod_spec(errors, "spec.template.spec", template.get("spec"))
    if (template.get("spec") or {}).get("restartPolicy", "Always") != "Always":
        errors.not_supported(
            "spec.template.spec.restartPolicy", template["spec"]["restartPolicy"], ("Always",)
        )


def _apps_workload(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidateReplicaSetSpec / ValidateDeploymentSpec (apps/v1: the selector is required)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    _replicas(errors, spec)
    selector = spec.get("selector")
    match = None
    if selector is None:
        errors.required("spec.selector")
    elif not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        errors.invalid("spec.selector", selector, f"empty selector is invalid for {obj['kind'].lower()}")
    else:
        errors.labels("spec.selector.matchLabels", selector.get("matchLabels"))
        try:
            match = label_selector(selector)
        except SelectorError as err:
            errors.invalid("spec.selector", selector, str(err))
    if old is not None and selector != (old.get("spec") or {}).get("selector"):
        errors.invalid("spec.selector", selector, "field is immutable")
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.required("spec.template")
        return
    labels = _template_labels(template)
    errors.labels("spec.template.metadata.labels", labels)
    if match is not None and not match(labels):
        errors.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")
    pod_spec(errors, "spec.template.spec", template.get("spec"))
    if obj["kind"] == "Deployment":
        strategy = spec.get("strategy") or {}
        kind = strategy.get("type") if isinstance(strategy, dict) else strategy
        if kind not in (None, "RollingUpdate", "Recreate"):
            errors.not_supported("spec.strategy.type", kind, ("Recreate", "RollingUpdate"))


def _node(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec") or {}
    taints = spec.get("taints") if isinstance(spec, dict) else None
    if isinstance(taints, list):
        seen = set()
        for i, taint in enumerate(taints):
            where = f"spec.taints[{i}]"
            if not isinstance(taint, dict):
                errors.type_error(where, taint, "an object")
                continue
            if not taint.get("key"):
                errors.required(f"{where}.key")
            else:
                errors.label_key(f"{where}.key", taint["key"])
            value = taint.get("value")
            if isinstance(value, str) and label_value_errors(value):
                errors.invalid(f"{where}.value", value, ";".join(label_value_errors(value)))
            if taint.get("effect") not in _EFFECTS:
                errors.not_supported(f"{where}.effect", taint.get("effect", ""), _EFFECTS)
            pair = (taint.get("key"), taint.get("effect"))
            if pair in seen:
                errors.duplicate(where, f"{pair[0]}:{pair[1]}")
            seen.add(pair)
    status = obj.get("status") or {}
    if isinstance(status, dict):
        resource_list(errors, "status.capacity", status.get("capacity"))
        resource_list(errors, "status.allocatable", status.get("allocatable"))


def metadata_only(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """The validate hook of a kind with no rules beyond metadata's (Event, Lease, Namespace)."""


# The built-in kinds' validate hooks (registered in cluster/apiserver/builtin_kinds.py).
POD = _pod
REPLICATION_CONTROLLER = _replication_controller
APPS_WORKLOAD = _apps_workload
NODE = _node


def validate(info: KindInfo, obj: dict, old: dict | None = None) -> list[Cause]:
    """Every cause that makes `obj` invalid (empty when it is fine). `old` is set on update."""
    errors = FieldErrors()
    metadata(
        errors, obj.get("metadata"), info.namespaced, "label" if info.kind == "Namespace" else "subdomain"
    )
    if old is not None:
        meta, old_meta = obj.get("metadata") or {}, old.get("metadata") or {}
        if meta.get("name") != old_meta.get("name"):
            errors.invalid("metadata.name", meta.get("name"), "field is immutable")
    if info.validate is not None:
        info.validate(errors, obj, old)
    return errors.causes

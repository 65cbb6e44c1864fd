"""What apps/v1 workloads share in validation (upstream `pkg/apis/apps/validation`): a required,
non-empty selector that matches the template's labels and may not change, replicas, the template's
pod spec."""

from __future__ import annotations

from cluster.apiserver.fielderrors import FieldErrors
from cluster.kinds.core.podspec import template_labels, validate_pod_spec
from cluster.kinds.core.replicationcontroller import validate_replicas
from k8s.labels import SelectorError, label_selector


def validate_workload(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidateReplicaSetSpec / ValidateDeploymentSpec (apps/v1: the selector is required)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    validate_replicas(errors, spec)
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
    labels = template_labels(template)
    errors.labels("spec.template.metadata.labels", labels)
    if match is not None and not match(labels):
        errors.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")
    validate_pod_spec(errors, "spec.template.spec", template.get("spec"))

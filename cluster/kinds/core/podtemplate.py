"""PodTemplates (core/v1, `podtemplates`): upstream `pkg/registry/core/podtemplate`,
SetObjectDefaults_PodTemplate, ValidatePodTemplate and printPodTemplate; kubectl describes them
generically."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.core.podspec import template_defaults, template_labels, validate_pod_spec
from cluster.kubeapi import describe
from cluster.kubeapi.tables import NAME_COLUMN, TableSpec, containers_images
from k8s.labels import format_labels


def defaults(obj: dict) -> None:
    template_defaults(obj)  # the pod spec under `template`, as every PodSpec is defaulted


def prepare_for_create(obj: dict) -> None:
    obj["metadata"]["generation"] = 1  # the strategy's; a changed template bumps it on update


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    template = obj.get("template") if isinstance(obj.get("template"), dict) else {}
    errors.labels("template.labels", template_labels(template))  # ValidatePodTemplateSpec's path
    spec = template.get("spec") or {}
    validate_pod_spec(errors, "template.spec", spec)
    if isinstance(spec, dict) and spec.get("ephemeralContainers"):
        message = "ephemeral containers not allowed in pod template"
        errors.forbidden("template.spec.ephemeralContainers", message)


def _row(obj: dict, now: datetime) -> list:
    template = obj.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels")
    return [obj["metadata"]["name"], *containers_images(template), format_labels(labels)]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Containers", "string", "", 0),
        ("Images", "string", "", 0),
        ("Pod Labels", "string", "", 0),
    ),
    _row,
)

KIND = KindInfo(
    kind="PodTemplate",
    plural="podtemplates",
    singular="podtemplate",
    group="",
    version="v1",
    namespaced=True,
    generation_from="template",
    reset_rank=50,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe.generic("PodTemplate"),
    prepare_for_create=prepare_for_create,
)

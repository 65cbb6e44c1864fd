"""The scale subresource (autoscaling/v1 Scale) of ReplicationControllers, ReplicaSets, Deployments."""

from __future__ import annotations

from django.db import transaction

from cluster.apiserver import store
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError, Cause, invalid, not_found
from cluster.apiserver.fielderrors import go_value
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.reads import info_for
from cluster.apiserver.validation import INT32_MAX
from cluster.apiserver.writes import check_version, store_update
from cluster.models import ApiObject, Cluster
from k8s.labels import format_label_selector, format_labels

SCALE = KindInfo(
    kind="Scale", plural="scale", singular="scale", group="autoscaling", version="v1", namespaced=True
)


def _selector_text(kind: str, selector: object) -> str:
    """The selector as a label-selector string, as Scale.status.selector carries it: a
    ReplicationController's map as labels.SelectorFromSet prints it, an apps/v1 LabelSelector as
    LabelSelectorAsSelector(...).String() does (requirements by key); "" when it selects all."""
    if not isinstance(selector, dict):
        return ""
    if kind == "ReplicationController":
        return format_labels(selector, empty="")
    return format_label_selector(selector, empty="")


def to_scale(body: dict) -> dict:
    meta = body["metadata"]
    spec, status = body.get("spec") or {}, body.get("status") or {}
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": meta["name"],
            "namespace": meta.get("namespace", ""),
            "uid": meta.get("uid"),
            "resourceVersion": meta.get("resourceVersion"),
            "creationTimestamp": meta.get("creationTimestamp"),
        },
        "spec": {"replicas": spec.get("replicas", 0)},
        "status": {
            "replicas": status.get("replicas", 0),
            "selector": _selector_text(body["kind"], spec.get("selector")),
        },
    }


def _scalable(kind: str) -> KindInfo:
    info = info_for(kind)
    if not info.has_scale:
        raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
    return info


def get_scale(cluster: Cluster, kind: str, namespace: str | None, name: str) -> dict:
    info = _scalable(kind)
    row = ApiObject.objects.filter(
        cluster=cluster, kind=kind, namespace=namespace or "default", name=name
    ).first()
    if row is None:
        raise not_found(info, name)
    return to_scale(row.body)


def scale(
    cluster: Cluster,
    kind: str,
    namespace: str | None,
    name: str,
    replicas: object,
    actor: Actor,
    resource_version: str | None = None,
) -> dict:
    """Set spec.replicas; returns the Scale. A negative or non-integer count gets 422."""
    info = _scalable(kind)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        message = f"Invalid value: {go_value(replicas)}: must be greater than or equal to 0"
        raise invalid(SCALE, name, [Cause("FieldValueInvalid", "spec.replicas", message)])
    if replicas > INT32_MAX:
        message = f"Invalid value: {replicas}: must be less than or equal to {INT32_MAX}"
        raise invalid(SCALE, name, [Cause("FieldValueInvalid", "spec.replicas", message)])
    with transaction.atomic():
        locked = store.lock(cluster)
        row = store.find(locked, kind, namespace or "default", name)
        if row is None:
            raise not_found(info, name)
        check_version(info, name, resource_version, row)
        body = store.clone(row.body)
        body["spec"]["replicas"] = replicas
        result = store_update(locked, info, row, body, actor, None, "scale")
    cluster.revision = locked.revision
    return to_scale(result)

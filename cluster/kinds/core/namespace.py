"""Namespaces (core/v1, `namespaces`, short name `ns`, cluster-scoped): SetDefaults_Namespace, the
printer's columns, `kubectl describe namespace`, and the four namespaces every cluster has."""

from __future__ import annotations

import uuid
from datetime import datetime

from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import BuiltinObjects, KindInfo, Subresource, status_subresource
from cluster.apiserver.validators import metadata_only
from cluster.kinds.core.limitrange import limits_section
from cluster.kinds.core.resourcequota import quota_section
from cluster.kubeapi.describe import rfc_time
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from cluster.kubeapi.tabwriter import tabwrite

# Namespaces every cluster has, as `kubectl get ns` shows on a fresh cluster.
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def defaults(obj: dict) -> None:
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    obj.setdefault("status", {}).setdefault("phase", "Active")
    obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"].get("name", "")


def _system_namespace(cluster, namespace: str, name: str) -> dict:
    """default, kube-system, kube-public and kube-node-lease exist from the cluster's birth."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": name,
            "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:{name}")),
            "resourceVersion": "1",
            "creationTimestamp": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "labels": {"kubernetes.io/metadata.name": name},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def _undeletable(name: str) -> ApiError:
    message = f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    return ApiError(403, "Forbidden", message, {"name": name, "kind": "namespaces"})


def _row(obj: dict, now: datetime) -> list:
    phase = (obj.get("status") or {}).get("phase", "")
    return [obj["metadata"]["name"], phase, age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Status", "string", "", 0), AGE_COLUMN), _row)


def describe_namespace(namespace: dict, quotas: list[dict], limit_ranges: list[dict]) -> str:
    """describeNamespace: the namespace, its conditions when it has some, then its ResourceQuotas
    and LimitRanges (kubectl prints
    both sections whenever the server serves the kinds, "No resource quota." when there is none)."""
    meta, status = namespace.get("metadata") or {}, namespace.get("status") or {}
    lines = [f"Name:\t{meta.get('name', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines.append(f"Status:\t{status.get('phase', 'Active')}")
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    if conditions:  # the namespace controller's, while it deletes the namespace
        lines += ["Conditions:", "  Type\tStatus\tLastTransitionTime\tReason\tMessage"]
        lines.append("  ----\t------\t------------------\t------\t-------")
        for c in conditions:
            cells = (c.get("type", ""), c.get("status", ""), rfc_time(c.get("lastTransitionTime")))
            lines.append("  " + "\t".join((*cells, c.get("reason", ""), c.get("message", ""))))
    lines += ["", *quota_section(quotas), "", *limits_section(limit_ranges)]
    return tabwrite("\n".join(lines) + "\n")


def describe(read, namespace: str, name: str) -> str:
    return describe_namespace(
        read.get("Namespace", None, name), read.list("ResourceQuota", name), read.list("LimitRange", name)
    )


KIND = KindInfo(
    kind="Namespace",
    plural="namespaces",
    singular="namespace",
    group="",
    version="v1",
    namespaced=False,
    short_names=("ns",),
    # finalize: spec.finalizers, as the namespace controller (and a teacher forcing it) writes them
    subresources=(status_subresource("Namespace"), Subresource("finalize", "Namespace", ("update",))),
    field_selectors=("status.phase",),
    name_rule="label",  # ValidateNamespaceName: a DNS label, not a subdomain
    reset_rank=70,
    defaults=defaults,
    validate=metadata_only,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        keys=tuple(("", name) for name in SYSTEM_NAMESPACES),
        build=_system_namespace,
        refuse_delete=_undeletable,
    ),
)

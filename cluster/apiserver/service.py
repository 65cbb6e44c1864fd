"""The API server's verbs: the ONLY way to change cluster state (docs/architecture.md rule 1).

Each write runs in one transaction holding the cluster row lock: check, default, validate, write
the row, its labels and one log entry with the steps the writer's flow recorder records
(store.write, `actor.flow`), then a nudge after commit.
"""

from __future__ import annotations

from django.db import transaction

from cluster.apiserver import cascade, defaults, graceful, managedfields, namespaces, rows, store, typecheck
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError, Cause, Gone, invalid, not_found
from cluster.apiserver.fielderrors import go_value
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.manifests import Allow, apply_text
from cluster.apiserver.patch import APPLY, apply_patch, decode
from cluster.apiserver.reads import check_kind, get, info_for, list_items, list_objects
from cluster.apiserver.rows import LogEntry
from cluster.apiserver.scale import get_scale, scale
from cluster.apiserver.writes import check_version, create, find_or_builtin, locked_row, store_update
from cluster.models import Cluster

__all__ = [
    "Actor",
    "ApiError",
    "Gone",
    "apply_manifests",
    "bind",
    "check_patch_options",
    "create",
    "current_revision",
    "delete",
    "events_since",
    "finalize_namespace",
    "get",
    "get_scale",
    "list_items",
    "list_objects",
    "patch",
    "scale",
    "update",
]


# PatchOptions, as a refused fieldManager or force names it.
PATCH_OPTIONS = KindInfo(
    kind="PatchOptions", plural="", singular="", group="meta.k8s.io", version="v1", namespaced=False
)

# DeleteOptions, as a refused propagationPolicy names it.
DELETE_OPTIONS = KindInfo(
    kind="DeleteOptions", plural="", singular="", group="meta.k8s.io", version="v1", namespaced=False
)


def _ns(info: KindInfo, namespace: str | None) -> str:
    return (namespace or "default") if info.namespaced else ""


def update(
    cluster: Cluster, obj: dict, actor: Actor, subresource: str | None = None, typed: bool = False
) -> dict:
    """PUT: replace the object; a stale metadata.resourceVersion gets 409 Conflict. `typed`: the
    caller's decoder has checked the body's JSON types already (one check per write)."""
    info = check_kind(obj)
    if not typed:
        typecheck.check_body(info, obj)
    meta = obj.get("metadata") or {}
    name, namespace = meta.get("name") or "", _ns(info, meta.get("namespace"))
    with transaction.atomic():
        locked, row = locked_row(cluster, info, namespace, name)
        check_version(info, name, meta.get("resourceVersion"), row)
        result = store_update(locked, info, row, obj, actor, subresource, "update")
    cluster.revision = locked.revision
    return result


def patch(
    cluster: Cluster,
    kind: str,
    namespace: str | None,
    name: str,
    body: object,
    content_type: str,
    actor: Actor,
    subresource: str | None = None,
    force: bool = False,
) -> dict:
    """PATCH by media type; apply-patch+yaml (server-side apply) creates when the object is missing
    and merges by field ownership (`force`: take the fields other managers own)."""
    info = info_for(kind)
    namespace = _ns(info, namespace)
    media = content_type.split(";")[0].strip()
    decoded = decode(body, media)  # type: ignore[arg-type]
    with transaction.atomic():
        locked = store.lock(cluster)
        row = find_or_builtin(locked, info, namespace, name)
        if row is None and media == APPLY and isinstance(decoded, dict):
            meta = decoded.setdefault("metadata", {})
            if isinstance(meta, dict):  # else create's type check names the field
                meta.setdefault("name", name)
                if info.namespaced:
                    meta.setdefault("namespace", namespace)
            return create(cluster, decoded, actor, applied=decoded)
        if row is None:
            raise not_found(info, name)
        patched = apply_patch(store.clone(row.body), decoded, media, kind)
        typecheck.check_patched(info, name, patched)
        check_version(info, name, (patched.get("metadata") or {}).get("resourceVersion"), row)
        entries = None
        if media == APPLY:
            sub = subresource or ""
            write = managedfields.Write(actor.manager, info.kind, info.api_version, info.has_status, sub)
            current = managedfields.entries_of(row.body["metadata"])
            patched, entries = write.applied(current, row.body, decoded, patched, force)  # type: ignore[arg-type]
        result = store_update(locked, info, row, patched, actor, subresource, "patch", entries)
    cluster.revision = locked.revision
    return result


def check_patch_options(content_type: str, field_manager: str, force_given: bool) -> None:
    """PatchOptions as ValidatePatchOptions judges them: an apply names its manager, only an
    apply may force."""
    media = content_type.split(";")[0].strip()
    causes = []
    if media == APPLY and not field_manager:
        required = "Required value: is required for apply patch"
        causes.append(Cause("FieldValueRequired", "fieldManager", required))
    if media != APPLY and force_given:
        forbidden = "Forbidden: may not be specified for non-apply patch"
        causes.append(Cause("FieldValueForbidden", "force", forbidden))
    if causes:
        raise invalid(PATCH_OPTIONS, "", causes)


def delete(
    cluster: Cluster,
    kind: str,
    namespace: str | None,
    name: str,
    actor: Actor,
    propagation: str = "Background",
    resource_version: str | None = None,
    grace_period: int | None = None,
    uid: str | None = None,
) -> dict:
    """DELETE: the object as it was removed (with its final resourceVersion), or, for a Pod on a
    node, as marked for graceful deletion (`graceful`: deletionTimestamp; its kubelet deletes it
    with grace_period 0 when its containers have stopped); dependents follow (Background/
    Foreground) or lose their ownerReference (Orphan), as `cascade` defines; a Namespace is
    marked Terminating for its controller to empty (`namespaces`). `uid` and
    `resource_version` are DeleteOptions' preconditions."""
    info = info_for(kind)
    namespace = _ns(info, namespace)
    builtins = info.builtins
    if builtins is not None and builtins.refuse_delete is not None and builtins.has(namespace, name):
        raise builtins.refuse_delete(name)
    if propagation not in cascade.PROPAGATION_POLICIES:
        supported = ", ".join(f'"{p}"' for p in ("Foreground", "Background", "Orphan"))
        message = f"Unsupported value: {go_value(propagation)}: supported values: {supported}"
        cause = Cause("FieldValueNotSupported", "propagationPolicy", message)
        raise invalid(DELETE_OPTIONS, "", [cause])
    with transaction.atomic():
        locked, row = locked_row(cluster, info, namespace, name)
        check_version(info, name, resource_version, row)
        graceful.check_uid(info, name, uid, row.uid)
        if info.kind == "Namespace":
            body = namespaces.delete(locked, row, actor)
        else:
            body = cascade.delete(locked, row, actor, propagation, grace_period)
    cluster.revision = locked.revision
    return body


def finalize_namespace(cluster: Cluster, name: str, actor: Actor) -> dict:
    """namespaces/finalize, as the namespace controller uses it: `kubernetes` leaves spec.finalizers
    (and the namespace goes when nothing else keeps it)."""
    info = info_for("Namespace")
    with transaction.atomic():
        locked, row = locked_row(cluster, info, "", name)
        body = namespaces.finalize(locked, row, actor)
    cluster.revision = locked.revision
    return body


def bind(cluster: Cluster, namespace: str | None, name: str, node_name: str, actor: Actor) -> dict:
    """pods/binding: set spec.nodeName once and mark PodScheduled=True; returns the pod."""
    info = info_for("Pod")
    namespace = _ns(info, namespace)
    with transaction.atomic():
        locked, row = locked_row(cluster, info, namespace, name)
        pod = row.body  # freshly read, ours: the labels compare equal, as a binding keeps them
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            message = (
                f'Operation cannot be fulfilled on pods/binding "{name}": '
                f'pod {name} is already assigned to node "{current}"'
            )
            raise ApiError(409, "Conflict", message, {"name": name, "kind": "pods/binding"})
        pod["spec"]["nodeName"] = node_name
        conditions = [
            c for c in pod.setdefault("status", {}).get("conditions") or [] if c.get("type") != "PodScheduled"
        ]
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": defaults.now_rfc3339(),
            }
        )
        pod["status"]["conditions"] = conditions
        store.write(locked, "bind", "Pod", pod, row, actor)
    cluster.revision = locked.revision
    return pod


def current_revision(cluster: Cluster) -> int:
    """The cluster's store revision, read now from the database (the health checks' `etcd`)."""
    return rows.revisions(cluster.pk)[0]


def events_since(
    cluster: Cluster, revision: int, limit: int | None = None, decode: bool = True
) -> list[LogEntry]:
    """The log after `revision`, oldest first; raises Gone (410) when it was compacted away.
    Without `decode`, each entry's `object` is its stored JSON text."""
    return store.events_since(cluster, revision, limit, decode)


def apply_manifests(
    cluster: Cluster, text: str, actor: Actor, allow: Allow | None = None, field_validation: str = "Strict"
) -> dict:
    """Create or update every object of a multi-document YAML in one transaction (manifests.py);
    `allow` refuses the writes the caller may not make; `field_validation` as kubectl's (Strict)."""
    return apply_text(cluster, text, actor, allow, field_validation)

"""The API server's verbs: the ONLY way to change cluster state (CP-CONTRACT.md, DESIGN.md rule 1).

Each write runs in one transaction holding the cluster row lock: check, default, validate, write
the row, its labels and one log entry (store.write), then the flow hook and a nudge after commit.
"""

from __future__ import annotations

from django.db import transaction

from cluster.apiserver import cascade, defaults, store, typecheck
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError, Cause, Gone, already_exists, conflict, invalid, not_found
from cluster.apiserver.fielderrors import go_value
from cluster.apiserver.kinds import BUILTIN_NAMESPACES, KindInfo
from cluster.apiserver.patch import APPLY, apply_patch, decode
from cluster.apiserver.reads import check_kind, get, info_for, list_objects, namespace_exists
from cluster.apiserver.scale import get_scale, scale
from cluster.apiserver.validators import validate
from cluster.models import ApiObject, Cluster, WatchEvent

__all__ = [
    "Actor",
    "ApiError",
    "Gone",
    "apply_manifests",
    "bind",
    "create",
    "delete",
    "events_since",
    "get",
    "get_scale",
    "list_objects",
    "patch",
    "scale",
    "update",
]


def _ns(info: KindInfo, namespace: str | None) -> str:
    return (namespace or "default") if info.namespaced else ""


def create(cluster: Cluster, obj: dict, actor: Actor) -> dict:
    """POST: default, validate and store a new object; 409 AlreadyExists when the name is taken."""
    info = check_kind(obj)
    typecheck.check_body(info, obj)
    body = store.clone(obj)
    body["apiVersion"] = info.api_version
    defaults.on_create(body, info.namespaced)
    causes = validate(info, body)
    name = body["metadata"].get("name") or ""
    if causes:
        raise invalid(info, name, causes)
    namespace = body["metadata"].get("namespace", "")
    with transaction.atomic():
        if namespace and not namespace_exists(cluster, namespace):
            raise not_found(info_for("Namespace"), namespace)
        locked = store.lock(cluster)
        builtin = info.kind == "Namespace" and name in BUILTIN_NAMESPACES
        if builtin or store.find(locked, info.kind, namespace, name) is not None:
            raise already_exists(info, name)
        store.write(locked, "create", info.kind, body, None, actor)
    cluster.revision = locked.revision
    return body  # ours alone: the stored row was serialized from it and is not kept


def _locked_row(cluster: Cluster, info: KindInfo, namespace: str, name: str) -> tuple[Cluster, ApiObject]:
    locked = store.lock(cluster)
    row = store.find(locked, info.kind, namespace, name)
    if row is None:
        raise not_found(info, name)
    return locked, row


def _check_version(info: KindInfo, name: str, wanted: object, row: ApiObject) -> None:
    if wanted not in (None, "") and str(wanted) != str(row.resource_version):
        raise conflict(info, name)


def _merge_update(info: KindInfo, old: dict, new: dict, subresource: str | None) -> dict:
    """The object to store for PUT/PATCH: server-owned fields kept, status or spec as the subresource says.

    `old` is the row's freshly read body (ours): the result may share parts of it, but never
    changes it, so `result == old` still tells a write that changes nothing.
    """
    if subresource == "status":
        result = dict(old)
        result["metadata"] = dict(old["metadata"])
        result["status"] = store.clone(new.get("status") or {})
        return result
    result = store.clone(new)
    result["apiVersion"], result["kind"] = info.api_version, info.kind
    meta, old_meta = result.setdefault("metadata", {}), old["metadata"]
    for key in ("uid", "creationTimestamp", "generation", "namespace", "deletionTimestamp"):
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    meta.setdefault("name", old_meta["name"])
    if info.has_status:
        result["status"] = old.get("status", {})
    defaults.kind_defaults(result)
    if "generation" in old_meta and result.get("spec") != old.get("spec"):
        meta["generation"] = old_meta["generation"] + 1
    return result


def _store_update(
    locked: Cluster,
    info: KindInfo,
    row: ApiObject,
    new: dict,
    actor: Actor,
    subresource: str | None,
    verb: str,
) -> dict:
    old = row.body
    result = _merge_update(info, old, new, subresource)
    causes = validate(info, result, old)
    if causes:
        raise invalid(info, row.name, causes)
    result["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion")
    if result == old:
        return old  # nothing changed: no new revision, as the real API server
    store.write(locked, "status" if subresource == "status" else verb, info.kind, result, row, actor)
    return result


def update(cluster: Cluster, obj: dict, actor: Actor, subresource: str | None = None) -> dict:
    """PUT: replace the object; a stale metadata.resourceVersion gets 409 Conflict."""
    info = check_kind(obj)
    typecheck.check_body(info, obj)
    meta = obj.get("metadata") or {}
    name, namespace = meta.get("name") or "", _ns(info, meta.get("namespace"))
    with transaction.atomic():
        locked, row = _locked_row(cluster, info, namespace, name)
        _check_version(info, name, meta.get("resourceVersion"), row)
        result = _store_update(locked, info, row, obj, actor, subresource, "update")
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
) -> dict:
    """PATCH by media type; apply-patch+yaml (server-side apply) creates when the object is missing."""
    info = info_for(kind)
    namespace = _ns(info, namespace)
    media = content_type.split(";")[0].strip()
    decoded = decode(body, media)  # type: ignore[arg-type]
    with transaction.atomic():
        locked = store.lock(cluster)
        row = store.find(locked, info.kind, namespace, name)
        if row is None and media == APPLY and isinstance(decoded, dict):
            meta = decoded.setdefault("metadata", {})
            meta.setdefault("name", name)
            if info.namespaced:
                meta.setdefault("namespace", namespace)
            return create(cluster, decoded, actor)
        if row is None:
            raise not_found(info, name)
        patched = apply_patch(store.clone(row.body), decoded, media, kind)
        typecheck.check_patched(info, name, patched)
        _check_version(info, name, (patched.get("metadata") or {}).get("resourceVersion"), row)
        result = _store_update(locked, info, row, patched, actor, subresource, "patch")
    cluster.revision = locked.revision
    return result


def delete(
    cluster: Cluster,
    kind: str,
    namespace: str | None,
    name: str,
    actor: Actor,
    propagation: str = "Background",
    resource_version: str | None = None,
) -> dict:
    """DELETE: the object as it was removed (with its final resourceVersion); dependents follow
    (Background/Foreground) or lose their ownerReference (Orphan), as `cascade` defines."""
    info = info_for(kind)
    namespace = _ns(info, namespace)
    if kind == "Namespace" and name in BUILTIN_NAMESPACES:
        message = f'namespaces "{name}" is forbidden: this namespace may not be deleted'
        raise ApiError(403, "Forbidden", message, {"name": name, "kind": "namespaces"})
    if propagation not in cascade.PROPAGATION_POLICIES:
        supported = ", ".join(f'"{p}"' for p in ("Foreground", "Background", "Orphan"))
        message = f"Unsupported value: {go_value(propagation)}: supported values: {supported}"
        cause = Cause("FieldValueNotSupported", "propagationPolicy", message)
        raise invalid(KindInfo("DeleteOptions", "meta.k8s.io", "v1", "", "", False), "", [cause])
    with transaction.atomic():
        locked, row = _locked_row(cluster, info, namespace, name)
        _check_version(info, name, resource_version, row)
        body = cascade.delete(locked, row, actor, propagation)
    cluster.revision = locked.revision
    return body


def bind(cluster: Cluster, namespace: str | None, name: str, node_name: str, actor: Actor) -> dict:
    """pods/binding: set spec.nodeName once and mark PodScheduled=True; returns the pod."""
    info = info_for("Pod")
    namespace = _ns(info, namespace)
    with transaction.atomic():
        locked, row = _locked_row(cluster, info, namespace, name)
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


def events_since(cluster: Cluster, revision: int, limit: int | None = None) -> list[WatchEvent]:
    """The log after `revision`, oldest first; raises Gone (410) when it was compacted away."""
    return store.events_since(cluster, revision, limit)


def apply_manifests(cluster: Cluster, text: str, actor: Actor) -> dict:
    """Create or update every object of a multi-document YAML in one transaction (manifests.py)."""
    from cluster.apiserver.manifests import apply_text

    return apply_text(cluster, text, actor)

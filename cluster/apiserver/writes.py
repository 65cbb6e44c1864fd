"""The write path every verb shares: create, the locked row, the version check, the merge of an
update with what is stored, and the store update (validate, then store.write).

`service` (the verbs), `scale` and `manifests` (apply) all write through here, so none of them
reaches into another's private functions.
"""

from __future__ import annotations

from django.db import transaction

from cluster.apiserver import cascade, defaults, finalizers, managedfields, namespaces, store, typecheck
from cluster.apiserver.actor import Actor
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import already_exists, conflict, invalid, not_found
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.reads import check_kind, info_for, namespace_exists
from cluster.apiserver.validators import validate
from cluster.flow.writers import COMPONENT
from cluster.kinds.core import ephemeral, pod
from cluster.models import ApiObject, Cluster


def create(
    cluster: Cluster, obj: dict, actor: Actor, typed: bool = False, applied: dict | None = None
) -> dict:
    """POST: default, validate and store a new object; 409 AlreadyExists when the name is taken.
    `typed`: the caller's decoder has checked the body's JSON types already (one check per write);
    `applied`: the server-side apply configuration this create comes from (its manager's fields)."""
    info, body = admitted(cluster, obj, typed)
    write = _write_of(info, actor, None, "create")
    if applied is not None:
        _, entries = write.applied([], None, applied, store.clone(applied), True)
    else:
        # The manager owns what it sent and its defaults, not what admission added later.
        plain = store.clone(obj)
        plain["apiVersion"] = info.api_version
        defaults.kind_defaults(plain)
        if info.kind == "Pod":
            pod.without_admission_defaults(plain, obj)
        # managedFields the body carries are where the create starts from, as upstream's.
        entries = write.updated(managedfields.entries_of(obj.get("metadata") or {}), None, plain)
    body["metadata"]["managedFields"] = managedfields.encoded(entries)
    if not body["metadata"]["managedFields"]:
        del body["metadata"]["managedFields"]
    name = body["metadata"].get("name") or ""
    namespace = body["metadata"].get("namespace", "")
    with transaction.atomic():
        if namespace and not namespace_exists(cluster, namespace):
            raise not_found(info_for("Namespace"), namespace)
        locked = store.lock(cluster)
        builtin = info.builtins is not None and info.builtins.has(namespace, name)
        if builtin or store.find(locked, info.kind, namespace, name) is not None:
            raise already_exists(info, name)
        store.write(locked, "create", info.kind, body, None, actor)
    cluster.revision = locked.revision
    return body  # ours alone: the stored row was serialized from it and is not kept


def admitted(cluster: Cluster, obj: dict, typed: bool = False) -> tuple[KindInfo, dict]:
    """A new object as create would store it (mutating admission, defaults, validation), written
    nowhere: create's first half, and what a what-if question asks about. 422 with field paths."""
    info = check_kind(obj)
    if not typed:
        typecheck.check_body(info, obj)
    body = store.clone(obj)
    body["apiVersion"] = info.api_version
    chain.mutate(cluster, info.kind, body)
    defaults.on_create(body, info.namespaced)
    chain.mutate_defaulted(cluster, info.kind, body)
    causes = validate(info, body)
    if causes:
        raise invalid(info, body["metadata"].get("name") or "", causes)
    return info, body


def locked_row(cluster: Cluster, info: KindInfo, namespace: str, name: str) -> tuple[Cluster, ApiObject]:
    """The cluster row locked for this write and the object's row; 404 when there is none."""
    locked = store.lock(cluster)
    row = find_or_builtin(locked, info, namespace, name)
    if row is None:
        raise not_found(info, name)
    return locked, row


def find_or_builtin(locked: Cluster, info: KindInfo, namespace: str, name: str) -> ApiObject | None:
    """The stored row; a built-in object (the `kubernetes` Service) is stored on its first write."""
    row = store.find(locked, info.kind, namespace, name)
    builtins = info.builtins
    if row is None and builtins is not None and builtins.stored_on_write and builtins.has(namespace, name):
        body = builtins.build(locked, namespace, name)
        actor = Actor("kube-apiserver", "kube-apiserver", flow=COMPONENT)
        row = store.write(locked, "create", info.kind, body, None, actor)
        row = store.find(locked, info.kind, namespace, name)
    return row


def check_version(info: KindInfo, name: str, wanted: object, row: ApiObject) -> None:
    """409 Conflict when the caller names a resourceVersion that is not the stored one."""
    if wanted not in (None, "") and str(wanted) != str(row.resource_version):
        raise conflict(info, name)


def _write_of(info: KindInfo, actor: Actor, subresource: str | None, verb: str) -> managedfields.Write:
    tracked = subresource or ("scale" if verb == "scale" else "")
    return managedfields.Write(actor.manager, info.kind, info.api_version, info.has_status, tracked)


def _record_fields(
    info: KindInfo,
    actor: Actor,
    subresource: str | None,
    verb: str,
    old: dict,
    new: dict,
    result: dict,
    entries: list[managedfields.Entry] | None,
) -> None:
    """Set result's managedFields: the apply's, or this Update's over what the client sent (a
    client may rewrite them, `[{}]` clears them) or else what is stored."""
    if entries is None:
        sent = (new.get("metadata") or {}).get("managedFields")
        if subresource or not isinstance(sent, list) or not sent:
            sent = old["metadata"].get("managedFields")
        current = managedfields.entries_of({"managedFields": sent})
        entries = _write_of(info, actor, subresource, verb).updated(current, old, result)
    encoded = managedfields.encoded(entries)
    if encoded:
        result["metadata"]["managedFields"] = encoded
    else:
        result["metadata"].pop("managedFields", None)


def merge_update(info: KindInfo, old: dict, new: dict, subresource: str | None) -> dict:
    """The object to store for PUT/PATCH: server-owned fields kept, status or spec as the subresource says.

    `old` is the row's freshly read body (ours): the result may share parts of it, but never
    changes it, so `result == old` still tells a write that changes nothing.
    """
    if subresource == "ephemeralcontainers":
        return ephemeral.merged(old, new)
    if subresource == "status":
        result = dict(old)
        result["metadata"] = meta = dict(old["metadata"])
        result["status"] = store.clone(new.get("status") or {})
        for key in info.status_metadata:
            value = (new.get("metadata") or {}).get(key)
            if value is None:
                meta.pop(key, None)
            else:
                meta[key] = store.clone(value)
        return result
    result = store.clone(new)
    result["apiVersion"], result["kind"] = info.api_version, info.kind
    meta, old_meta = result.setdefault("metadata", {}), old["metadata"]
    for key in (
        "uid",
        "creationTimestamp",
        "generation",
        "namespace",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ):
        if key in old_meta:
            meta[key] = old_meta[key]
        else:
            meta.pop(key, None)
    meta.setdefault("name", old_meta["name"])
    if info.has_status:
        result["status"] = old.get("status", {})
    if info.kind == "Namespace":
        namespaces.prepare_for_update(result, old, subresource)
    defaults.kind_defaults(result)
    if "generation" in old_meta and result.get("spec") != old.get("spec"):
        meta["generation"] = old_meta["generation"] + 1
    return result


def store_update(
    locked: Cluster,
    info: KindInfo,
    row: ApiObject,
    new: dict,
    actor: Actor,
    subresource: str | None,
    verb: str,
    entries: list[managedfields.Entry] | None = None,
) -> dict:
    """Merge, validate and store an update of a locked row; an update that changes nothing writes
    nothing; one that removes the last finalizer of an object being deleted removes it.
    `entries`: the managed fields a server-side apply worked out; else the write is an Update's."""
    old = row.body
    result = merge_update(info, old, new, subresource)
    _record_fields(info, actor, subresource, verb, old, new, result, entries)
    if subresource == "ephemeralcontainers":
        causes = ephemeral.validate(result, old)
    else:
        causes = validate(info, result, old)
    if causes:
        raise invalid(info, row.name, causes)
    result["metadata"]["resourceVersion"] = old["metadata"].get("resourceVersion")
    if result == old:
        return old  # nothing changed: no new revision, as the real API server
    if finalizers.released(old, result):
        store.write(locked, "delete", info.kind, result, row, actor)
        cascade.release(locked, row, actor)
        return result
    store.write(locked, "status" if subresource == "status" else verb, info.kind, result, row, actor)
    return result

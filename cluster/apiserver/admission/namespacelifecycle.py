"""The NamespaceLifecycle admission plugin (plugin/pkg/admission/namespace/lifecycle, v1.33), its
create half: nothing new may be created in a namespace that is being terminated, so the namespace
controller's emptying of it (cluster/controllers/namespace.py) ends. Judged inside the write's
transaction, under the cluster lock, so no create slips in after the namespace's deletion began.
(A namespace that does not exist is refused earlier, by the create itself: 404.)"""

from __future__ import annotations

from cluster.apiserver import rows, store
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import kind_info

TERMINATING = "Terminating"


def terminating(cluster, namespace: str) -> bool:
    """Read once per transaction under the lock (rows.under_lock): a batch creates many objects in
    one namespace, and only this transaction's own write of the Namespace can change it."""
    if not namespace:
        return False
    hold = rows.under_lock(cluster.pk)
    key = ("namespace", cluster.pk, namespace)
    if hold is not None and key in hold:
        return hold[key]
    row = store.find(cluster, "Namespace", "", namespace)
    found = row is not None and (row.body.get("status") or {}).get("phase") == TERMINATING
    if hold is not None:
        hold[key] = found
    return found


def refusal(info, name: str, namespace: str) -> ApiError:
    """admission.NewForbidden with the NamespaceTerminating cause, as upstream words it."""
    why = f"unable to create new content in namespace {namespace} because it is being terminated"
    message = (
        f'{info.qualified} "{name}" is forbidden: {why}' if name else f"{info.qualified} is forbidden: {why}"
    )
    details = {"name": name, **({"group": info.group} if info.group else {}), "kind": info.plural}
    details["causes"] = [
        {
            "reason": "NamespaceTerminating",
            "message": f"namespace {namespace} is being terminated",
            "field": "metadata.namespace",
        }
    ]
    return ApiError(403, "Forbidden", message, details)


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    if verb != "create":
        return
    info = kind_info(kind)
    meta = body.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    if info is not None and info.namespaced and terminating(cluster, namespace):
        raise refusal(info, meta.get("name") or "", namespace)


def install() -> None:
    chain.register(admit)

"""Who may exec into a pod: the ONE place that decides, so a new authentication changes only this.

kube-apiserver authorizes `create` on `pods/exec` (for the websocket's GET as for SPDY's POST).
Both functions take what the caller came with — a Django request (the SPDY fallback, the web
console) or a Channels scope (the exec websocket) — and return the caller's user name, or raise
ApiError: 404 for a cluster the caller may not see, 403 in kube-apiserver's words.
"""

from __future__ import annotations

from cluster.api.access import can_edit, can_view
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster


def _user(request_or_scope):
    if isinstance(request_or_scope, dict):
        return request_or_scope.get("user")
    return getattr(request_or_scope, "user", None)


def _username(user) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return "system:anonymous"
    return user.get_username()


def authorize(request_or_scope, cluster: Cluster, namespace: str, name: str) -> str:
    """The caller's user name if it may exec into the pod `namespace/name` of `cluster`."""
    user = _user(request_or_scope)
    if not can_view(user, cluster):
        raise ApiError(404, "NotFound", f'cluster "{cluster.name}" not found')
    if not can_edit(user, cluster):
        raise forbidden(_username(user), namespace, name)
    return _username(user)


def exec_cluster(request_or_scope, cluster_name: str, namespace: str, name: str) -> tuple[Cluster, str]:
    """The cluster by name and the caller's user name, if the caller may exec into the pod."""
    cluster = Cluster.objects.filter(name=cluster_name).first()
    if cluster is None:
        raise ApiError(404, "NotFound", f'cluster "{cluster_name}" not found')
    return cluster, authorize(request_or_scope, cluster, namespace, name)


def forbidden(username: str, namespace: str, name: str) -> ApiError:
    message = (
        f'pods "{name}" is forbidden: User "{username}" cannot create resource "pods/exec" '
        f'in API group "" in the namespace "{namespace}"'
    )
    return ApiError(403, "Forbidden", message, {"name": name, "kind": "pods"})

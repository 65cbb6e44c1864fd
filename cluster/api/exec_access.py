"""Who may exec into a pod: the ONE place that decides, so a new authentication changes only this.

kube-apiserver authorizes `create` on `pods/exec`. `authorize` takes what the caller came with —
a Django request (the SPDY fallback, the web console) or a Channels scope (the exec websocket) —
and returns the user's name for the session, or raises kube-apiserver's 403.
"""

from __future__ import annotations

from cluster.api.access import can_edit
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster


def caller(request_or_scope):
    """The authenticated user, from a request (`.user`) or a websocket scope (`["user"]`)."""
    if isinstance(request_or_scope, dict):
        return request_or_scope.get("user")
    return getattr(request_or_scope, "user", None)


def username(user) -> str:
    """The user as kube-apiserver names it in a Forbidden message."""
    if user is None or not getattr(user, "is_authenticated", False):
        return "system:anonymous"
    return user.get_username()


def may_exec(user, cluster: Cluster) -> bool:
    return can_edit(user, cluster)


def authorize(request_or_scope, cluster: Cluster, namespace: str, name: str) -> str:
    """The caller's user name if it may exec into the pod; else 403 as kube-apiserver words it."""
    user = caller(request_or_scope)
    if not may_exec(user, cluster):
        raise forbidden(user, namespace, name)
    return username(user)


def forbidden(user, namespace: str, name: str) -> ApiError:
    message = (
        f'pods "{name}" is forbidden: User "{username(user)}" cannot create resource "pods/exec" '
        f'in API group "" in the namespace "{namespace}"'
    )
    return ApiError(403, "Forbidden", message, {"name": name, "kind": "pods"})

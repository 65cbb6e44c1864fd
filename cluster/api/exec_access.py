"""Who may exec into a pod: the ONE place that decides, so a new authentication changes only this.

kube-apiserver authorizes `create` on `pods/exec`; here that is the right to change the cluster.
"""

from __future__ import annotations

from cluster.api.access import can_edit
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster


def username(user) -> str:
    """The user as kube-apiserver names it in a Forbidden message."""
    if user is None or not getattr(user, "is_authenticated", False):
        return "system:anonymous"
    return user.get_username()


def may_exec(user, cluster: Cluster) -> bool:
    return can_edit(user, cluster)


def forbidden(user, namespace: str, name: str) -> ApiError:
    message = (
        f'pods "{name}" is forbidden: User "{username(user)}" cannot create resource "pods/exec" '
        f'in API group "" in the namespace "{namespace}"'
    )
    details = {"name": name, "kind": "pods"}
    return ApiError(403, "Forbidden", message, details)

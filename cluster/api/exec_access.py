"""Who may exec into a pod: the ONE place exec asks the access rule (cluster.auth.access).

kube-apiserver authorizes `create` on `pods/exec` (for the websocket's GET as for SPDY's POST).
Both functions take what the caller came with — a Django request (the SPDY fallback, the web
console) or a Channels scope (the exec websocket, authenticated by kubectl's bearer token) — and
return the caller's user name, or raise ApiError: 401 for a bad token, 404 for a cluster the
caller may not see, 403 in kube-apiserver's words, 429.
"""

from __future__ import annotations

from cluster.auth import access
from cluster.models import Cluster


def _where(namespace: str, name: str, resource: str = "pods/exec") -> dict:
    return {"verb": "create", "resource": resource, "namespace": namespace, "name": name}


def authorize(request_or_scope, cluster: Cluster, namespace: str, name: str) -> str:
    """The caller's user name if it may exec into the pod `namespace/name` of `cluster`."""
    where = _where(namespace, name)
    verb = where.pop("verb")
    return access.authorize(request_or_scope, cluster, verb, where.pop("resource"), **where).name


def exec_cluster(
    request_or_scope, cluster_name: str, namespace: str, name: str, resource: str = "pods/exec"
) -> tuple[Cluster, str]:
    """The cluster by name and the caller's user name, if the caller may exec into (or attach
    to: `pods/attach`) the pod."""
    cluster = access.get_cluster(request_or_scope, cluster_name, **_where(namespace, name, resource))
    return cluster, access.caller_of(request_or_scope).name

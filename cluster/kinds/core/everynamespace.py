"""Objects every namespace has from its creation: its `default` ServiceAccount and its
`kube-root-ca.crt` ConfigMap.

On a real cluster two controllers of kube-controller-manager keep them (the serviceaccounts
controller and the root-ca-cert-publisher): each creates its object in every namespace and
creates it again when it is deleted. KubeSim serves them as built-in objects of every namespace
(`BuiltinObjects.in_every_namespace`): they exist as soon as the namespace does, a write stores
one, and deleting the stored copy brings the built-in one back, as the controller would.
"""

from __future__ import annotations

import uuid

from cluster.kinds.core.namespace import SYSTEM_NAMESPACES
from cluster.models import ApiObject


def _born(cluster) -> str:
    return cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")


def namespaces(cluster) -> dict[str, tuple[str, str]]:
    """Every namespace of the cluster → (its uid, its creationTimestamp)."""
    found = {name: (f"{cluster.pk}:{name}", _born(cluster)) for name in SYSTEM_NAMESPACES}
    rows = ApiObject.objects.filter(cluster=cluster, kind="Namespace", namespace="")
    for name, uid, body in rows.values_list("name", "uid", "body"):
        created = ((body or {}).get("metadata") or {}).get("creationTimestamp") or _born(cluster)
        found[name] = (uid, created)
    return found


def metadata(cluster, kind: str, namespace: str, name: str) -> dict:
    """The built-in object's metadata: a uid of its own for each incarnation of the namespace."""
    namespace_uid, created = namespaces(cluster).get(namespace, ("", _born(cluster)))
    return {
        "name": name,
        "namespace": namespace,
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:{namespace_uid}:{kind}:{name}")),
        "resourceVersion": "1",
        "creationTimestamp": created,
    }

"""Kubernetes REST paths -> (kind, namespace, name, subresource)."""

from __future__ import annotations

from dataclasses import dataclass

from cluster.apiserver.errors import no_such_resource
from cluster.apiserver.kinds import KindInfo, by_resource


@dataclass(frozen=True, slots=True)
class Target:
    info: KindInfo
    namespace: str  # "" for cluster-scoped kinds and cluster-wide lists
    name: str  # "" for collections
    subresource: str


def resolve(group: str, version: str, rest: str) -> Target:
    """`namespaces/default/pods/web/log` -> Target(Pod, "default", "web", "log"); 404 when unknown."""
    parts = [p for p in rest.strip("/").split("/") if p]
    namespace = ""
    if len(parts) >= 3 and parts[0] == "namespaces" and parts[2] not in ("status", "finalize"):
        namespace, parts = parts[1], parts[2:]
    if not parts or len(parts) > 3:
        raise no_such_resource()
    info = by_resource(group, version, parts[0])
    if info is None or (namespace and not info.namespaced):
        raise no_such_resource()
    name = parts[1] if len(parts) > 1 else ""
    sub = parts[2] if len(parts) > 2 else ""
    if sub and info.subresource(sub) is None:
        raise no_such_resource()
    if info.namespaced and name and not namespace:
        raise no_such_resource()
    return Target(info, namespace, name, sub)

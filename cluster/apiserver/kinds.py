"""The kinds this API server serves: group, version, resource name and scope."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KindInfo:
    kind: str
    group: str  # "" for the core group
    version: str
    plural: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    has_status: bool = False  # a status subresource: PUT on the object keeps the stored status
    has_scale: bool = False

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        """The resource as error messages name it: "pods", "deployments.apps"."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: dict[str, KindInfo] = {
    info.kind: info
    for info in (
        KindInfo("Pod", "", "v1", "pods", "pod", True, ("po",), has_status=True),
        KindInfo("Node", "", "v1", "nodes", "node", False, ("no",), has_status=True),
        KindInfo(
            "ReplicationController",
            "",
            "v1",
            "replicationcontrollers",
            "replicationcontroller",
            True,
            ("rc",),
            has_status=True,
            has_scale=True,
        ),
        KindInfo("Event", "", "v1", "events", "event", True, ("ev",)),
        KindInfo("Namespace", "", "v1", "namespaces", "namespace", False, ("ns",), has_status=True),
        KindInfo(
            "ReplicaSet",
            "apps",
            "v1",
            "replicasets",
            "replicaset",
            True,
            ("rs",),
            has_status=True,
            has_scale=True,
        ),
        KindInfo(
            "Deployment",
            "apps",
            "v1",
            "deployments",
            "deployment",
            True,
            ("deploy",),
            has_status=True,
            has_scale=True,
        ),
        KindInfo("Lease", "coordination.k8s.io", "v1", "leases", "lease", True),
    )
}

BY_RESOURCE: dict[tuple[str, str], KindInfo] = {(info.group, info.plural): info for info in KINDS.values()}

# Namespaces every cluster has, as `kubectl get ns` shows on a fresh cluster.
BUILTIN_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def kind_info(kind: str) -> KindInfo | None:
    return KINDS.get(kind)


def by_resource(group: str, version: str, plural: str) -> KindInfo | None:
    info = BY_RESOURCE.get((group, plural))
    return info if info and info.version == version else None

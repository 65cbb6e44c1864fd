"""The resources KubeSim serves, described once for discovery, OpenAPI, tables and describe.

The names, short names, verbs and subresources are the real v1.33 API server's, so that kubectl's
RESTMapper resolves `po`, `rc`, `deploy`, ... exactly as it does against a real cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

VERSION = {
    "major": "1",
    "minor": "33",
    "gitVersion": "v1.33.1",
    "gitCommit": "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828",
    "gitTreeState": "clean",
    "buildDate": "2025-05-15T08:19:08Z",
    "goVersion": "go1.24.2",
    "compiler": "gc",
    "platform": "linux/amd64",
}

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, slots=True)
class Subresource:
    name: str
    kind: str
    verbs: tuple[str, ...]
    group: str = ""
    version: str = "v1"


@dataclass(frozen=True, slots=True)
class Resource:
    kind: str
    plural: str
    singular: str
    group: str  # "" is the core group
    version: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[Subresource, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def scope(self) -> str:
        return "Namespaced" if self.namespaced else "Cluster"


def _status(kind: str, group: str = "") -> Subresource:
    return Subresource("status", kind, ("get", "patch", "update"), group)


def _scale() -> Subresource:
    return Subresource("scale", "Scale", ("get", "patch", "update"), "autoscaling")


RESOURCES: tuple[Resource, ...] = (
    Resource(
        "Pod",
        "pods",
        "pod",
        "",
        "v1",
        True,
        ("po",),
        ("all",),
        (
            Subresource("binding", "Binding", ("create",)),
            Subresource("exec", "PodExecOptions", ("create", "get")),
            Subresource("log", "Pod", ("get",)),
            _status("Pod"),
        ),
    ),
    Resource("Node", "nodes", "node", "", "v1", False, ("no",), (), (_status("Node"),)),
    Resource(
        "ReplicationController",
        "replicationcontrollers",
        "replicationcontroller",
        "",
        "v1",
        True,
        ("rc",),
        ("all",),
        (_scale(), _status("ReplicationController")),
    ),
    Resource("Event", "events", "event", "", "v1", True, ("ev",)),
    Resource("Namespace", "namespaces", "namespace", "", "v1", False, ("ns",), (), (_status("Namespace"),)),
    Resource(
        "Deployment",
        "deployments",
        "deployment",
        "apps",
        "v1",
        True,
        ("deploy",),
        ("all",),
        (_scale(), _status("Deployment", "apps")),
    ),
    Resource(
        "ReplicaSet",
        "replicasets",
        "replicaset",
        "apps",
        "v1",
        True,
        ("rs",),
        ("all",),
        (_scale(), _status("ReplicaSet", "apps")),
    ),
    Resource("Lease", "leases", "lease", "coordination.k8s.io", "v1", True),
)

# Create-only reviews that store nothing (cluster/api/reviews.py: `kubectl auth can-i|whoami`). They
# are in discovery, so kubectl maps `can-i create selfsubjectaccessreviews`; not in OpenAPI.
REVIEWS: tuple[Resource, ...] = tuple(
    Resource(kind, f"{kind.lower()}s", kind.lower(), group, "v1", False, verbs=("create",))
    for kind, group in (
        ("SelfSubjectReview", "authentication.k8s.io"),
        ("SelfSubjectAccessReview", "authorization.k8s.io"),
        ("SelfSubjectRulesReview", "authorization.k8s.io"),
    )
)

BY_KIND: dict[str, Resource] = {r.kind: r for r in RESOURCES}
BY_PLURAL: dict[str, Resource] = {r.plural: r for r in RESOURCES}
# Group name -> its versions' resources, in the order discovery lists groups ("" first).
GROUPS: dict[str, list[Resource]] = {}
for _r in RESOURCES:
    GROUPS.setdefault(_r.group, []).append(_r)
# What discovery lists: the stored kinds' groups, then the reviews'.
DISCOVERY_GROUPS: dict[str, list[Resource]] = {group: list(rs) for group, rs in GROUPS.items()}
for _r in REVIEWS:
    DISCOVERY_GROUPS.setdefault(_r.group, []).append(_r)


def resource_for(kind: str) -> Resource:
    """The Resource for a Kind name ("Pod") or a plural/short name ("pods", "po")."""
    if kind in BY_KIND:
        return BY_KIND[kind]
    lowered = kind.lower()
    for r in RESOURCES:
        if lowered in (r.plural, r.singular, *r.short_names):
            return r
    raise KeyError(kind)

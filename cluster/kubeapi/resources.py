"""The resources KubeSim serves, as discovery, OpenAPI, tables and describe see them.

Every fact about a kind lives in the kind registry (cluster/apiserver/kinds.py, each built-in kind
in its module under cluster/kinds/); this module is its API-facing view plus the version.
"""

from __future__ import annotations

from cluster.apiserver.kinds import ALL_VERBS, KindInfo, Subresource, groups

# A served resource is a registered kind.
Resource = KindInfo

__all__ = [
    "ALL_VERBS",
    "METRICS",
    "REVIEWS",
    "VERSION",
    "Resource",
    "Subresource",
    "discovery_groups",
    "groups",
]

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

# Create-only reviews that store nothing (cluster/api/reviews.py: `kubectl auth can-i|whoami`), so
# they are not registered kinds. They are in discovery, so kubectl maps `can-i create
# selfsubjectaccessreviews`; not in OpenAPI.
REVIEWS: tuple[Resource, ...] = tuple(
    Resource(
        kind=kind,
        plural=f"{kind.lower()}s",
        singular=kind.lower(),
        group=group,
        version="v1",
        namespaced=False,
        verbs=("create",),
    )
    for kind, group in (
        ("SelfSubjectReview", "authentication.k8s.io"),
        ("SelfSubjectAccessReview", "authorization.k8s.io"),
        ("SelfSubjectRulesReview", "authorization.k8s.io"),
    )
)


# The resource metrics API (metrics-server's APIService `v1beta1.metrics.k8s.io`, served from the
# usage model by cluster/api/resource_metrics.py): get and list only; not registered kinds (nothing
# is stored), not in OpenAPI (metrics-server's is not merged into the apiserver's v3 documents).
METRICS: tuple[Resource, ...] = tuple(
    Resource(
        kind=kind,
        plural=plural,
        singular="",
        group="metrics.k8s.io",
        version="v1beta1",
        namespaced=namespaced,
        verbs=("get", "list"),
    )
    for kind, plural, namespaced in (("NodeMetrics", "nodes", False), ("PodMetrics", "pods", True))
)


def discovery_groups() -> dict[str, list[Resource]]:
    """What discovery lists: the registered kinds' groups, then the reviews', then the metrics API."""
    found = groups()
    for served in (*REVIEWS, *METRICS):
        found.setdefault(served.group, []).append(served)
    return found

"""API discovery documents: aggregated discovery v2 and the legacy lists.

kubectl first asks `/api` and `/apis` for `application/json;g=apidiscovery.k8s.io;v=v2;
as=APIGroupDiscoveryList`; the Content-Type of the answer tells it which of the two shapes it got,
so the aggregated form is only sent when asked for and always labelled as such.
"""

from __future__ import annotations

from cluster.kubeapi.resources import Resource, discovery_groups

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"


def wants_aggregated(accept: str) -> str | None:
    """The aggregated discovery media type the client accepts, or None for the legacy shape."""
    for part in accept.split(","):
        params = {p.strip() for p in part.split(";")}
        if "g=apidiscovery.k8s.io" in params and "as=APIGroupDiscoveryList" in params:
            if "v=v2" in params:
                return AGGREGATED_V2
            if "v=v2beta1" in params:
                return AGGREGATED_V2BETA1
    return None


def _aggregated_resource(r: Resource) -> dict:
    doc = {
        "resource": r.plural,
        "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
        "scope": r.scope,
        "singularResource": r.singular,
        "verbs": list(r.verbs),
    }
    if r.short_names:
        doc["shortNames"] = list(r.short_names)
    if r.categories:
        doc["categories"] = list(r.categories)
    if r.subresources:
        doc["subresources"] = [
            {
                "subresource": s.name,
                "responseKind": {"group": s.group, "version": s.version, "kind": s.kind},
                "verbs": list(s.verbs),
            }
            for s in r.subresources
        ]
    return doc


def _versions(group: str) -> list[str]:
    """The group's versions, the preferred first (a kind served in several lists them all)."""
    return list(dict.fromkeys(v for r in discovery_groups()[group] for v in r.versions))


def _served(group: str, version: str) -> list[Resource]:
    """The group's resources served in `version`, each as that version, by name."""
    found = (r.in_version(version) for r in discovery_groups().get(group, []))
    return sorted((r for r in found if r is not None), key=lambda r: r.plural)


def _aggregated_group(group: str, media_type: str) -> dict:
    return {
        "metadata": {"name": group, "creationTimestamp": None},
        "versions": [
            {
                "version": version,
                "resources": [_aggregated_resource(r) for r in _served(group, version)],
                "freshness": "Current",
            }
            for version in _versions(group)
        ],
    }


def aggregated(core: bool, media_type: str = AGGREGATED_V2) -> dict:
    """APIGroupDiscoveryList for `/api` (core=True) or `/apis` (every named group)."""
    names = [""] if core else [g for g in discovery_groups() if g]
    api_version = "apidiscovery.k8s.io/" + media_type.split("v=")[1].split(";")[0]
    return {
        "kind": "APIGroupDiscoveryList",
        "apiVersion": api_version,
        "metadata": {},
        "items": [_aggregated_group(g, media_type) for g in names],
    }


def api_versions() -> dict:
    """The legacy `/api` answer."""
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
    }


def _group_entry(group: str) -> dict:
    versions = [{"groupVersion": f"{group}/{v}", "version": v} for v in _versions(group)]
    return {"name": group, "versions": versions, "preferredVersion": versions[0]}


def api_group_list() -> dict:
    """The legacy `/apis` answer."""
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [_group_entry(g) for g in discovery_groups() if g],
    }


def api_group(group: str) -> dict | None:
    """`/apis/<group>`: one APIGroup, or None when we do not serve it."""
    if not group or group not in discovery_groups():
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group_entry(group)}


def _legacy_resources(r: Resource) -> list[dict]:
    main = {
        "name": r.plural,
        "singularName": r.singular,
        "namespaced": r.namespaced,
        "kind": r.kind,
        "verbs": list(r.verbs),
    }
    if r.short_names:
        main["shortNames"] = list(r.short_names)
    if r.categories:
        main["categories"] = list(r.categories)
    subs = []
    for s in r.subresources:
        sub = {"name": f"{r.plural}/{s.name}", "singularName": "", "namespaced": r.namespaced}
        if s.group:
            sub.update(group=s.group, version=s.version)
        sub.update(kind=s.kind, verbs=list(s.verbs))
        subs.append(sub)
    return [main, *subs]


def api_resource_list(group: str, version: str) -> dict | None:
    """`/api/v1` or `/apis/<group>/<version>`: APIResourceList, or None when not served."""
    resources = _served(group, version)
    if not resources:
        return None
    items = []
    for r in resources:
        items.extend(_legacy_resources(r))
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": f"{group}/{version}" if group else version,
        "resources": items,
    }

"""The RBAC authorizer, as kube-apiserver's (upstream `plugin/pkg/auth/authorizer/rbac`): a request
is allowed when a rule of a role bound to the user, or to one of their groups, allows it.

The bindings are the cluster's ClusterRoleBindings and, for a namespaced request, the
RoleBindings of its namespace, with the bootstrap ones (cluster/kinds/rbac/bootstrap.py); a
binding's role is read when the request is judged, and an aggregated ClusterRole's rules are the
union of the ClusterRoles its selectors match, as the clusterrole-aggregation controller keeps
them. Nothing is cached: a new RoleBinding counts for the very next request.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from cluster.apiserver import reads
from cluster.apiserver.errors import ApiError
from k8s.labels import SelectorError, label_selector

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class Attributes:
    """What a request asks, as authorizer.Attributes (resource "" and a path: a non-resource URL)."""

    verb: str
    group: str = ""
    resource: str = ""  # the plural
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @classmethod
    def of(cls, verb: str, resource: str, group: str, namespace: str, name: str, path: str) -> Attributes:
        plural, _, subresource = resource.partition("/")
        return cls(verb, group, plural, subresource, namespace, name, path)

    @property
    def is_resource(self) -> bool:
        return bool(self.resource)


# -- rules (upstream rbac/v1 helpers: VerbMatches, APIGroupMatches, ResourceMatches, ...) ----------
def _has(values: object, wanted: str) -> bool:
    return isinstance(values, list) and ("*" in values or wanted in values)


def _resource_matches(resources: object, plural: str, subresource: str) -> bool:
    if not isinstance(resources, list):
        return False
    combined = f"{plural}/{subresource}" if subresource else plural
    return (
        "*" in resources or combined in resources or (bool(subresource) and f"*/{subresource}" in resources)
    )


def _url_matches(urls: object, path: str) -> bool:
    if not isinstance(urls, list):
        return False
    for url in urls:
        if url == "*" or url == path or (str(url).endswith("*") and path.startswith(str(url)[:-1])):
            return True
    return False


def rule_allows(attributes: Attributes, rule: dict) -> bool:
    if not _has(rule.get("verbs"), attributes.verb):
        return False
    if not attributes.is_resource:
        return _url_matches(rule.get("nonResourceURLs"), attributes.path)
    names = rule.get("resourceNames")
    return (
        _has(rule.get("apiGroups"), attributes.group)
        and _resource_matches(rule.get("resources"), attributes.resource, attributes.subresource)
        and (not names or (isinstance(names, list) and attributes.name in names))
    )


# -- subjects -------------------------------------------------------------------------------------
def applies_to(subject: dict, user: str, groups: tuple[str, ...], binding_namespace: str) -> bool:
    """appliesToUser: a User by name, a Group by membership, a ServiceAccount by its user name."""
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return user == name
    if kind == "Group":
        return name in groups
    if kind == "ServiceAccount":
        namespace = subject.get("namespace") or binding_namespace
        return bool(namespace) and user == f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"
    return False


def _describe_subject(subject: dict) -> str:
    if subject.get("kind") == "ServiceAccount" and subject.get("namespace"):
        return f'{subject["kind"]} "{subject["namespace"]}/{subject.get("name", "")}"'
    return f'{subject.get("kind", "")} "{subject.get("name", "")}"'


# -- roles ----------------------------------------------------------------------------------------
def _find(cluster, kind: str, namespace: str | None, name: str) -> dict | None:
    try:
        return reads.get(cluster, kind, namespace, name)
    except ApiError:
        return None


def _selects(selector: object, labels: dict) -> bool:
    try:
        return isinstance(selector, dict) and label_selector(selector)(labels)
    except SelectorError:
        return False


def cluster_role_rules(cluster, role: dict, seen: frozenset[str] = frozenset()) -> list[dict]:
    """A ClusterRole's rules; an aggregated one's are those of every ClusterRole it selects."""
    aggregation = role.get("aggregationRule")
    if not isinstance(aggregation, dict):
        return [r for r in role.get("rules") or [] if isinstance(r, dict)]
    found: list[dict] = []
    selectors = aggregation.get("clusterRoleSelectors") or []
    name = role["metadata"]["name"]
    for other in reads.list_items(cluster, "ClusterRole"):
        other_name = other["metadata"]["name"]
        if other_name == name or other_name in seen:
            continue
        if any(_selects(s, other["metadata"].get("labels") or {}) for s in selectors):
            found += [r for r in cluster_role_rules(cluster, other, seen | {name}) if r not in found]
    return found


def _role_rules(cluster, ref: dict, namespace: str) -> list[dict]:
    if ref.get("kind") == "ClusterRole":
        role = _find(cluster, "ClusterRole", None, str(ref.get("name", "")))
        return cluster_role_rules(cluster, role) if role else []
    if ref.get("kind") == "Role" and namespace:
        role = _find(cluster, "Role", namespace, str(ref.get("name", "")))
        return [r for r in (role or {}).get("rules") or [] if isinstance(r, dict)]
    return []


def grants(cluster, user: str, groups: tuple[str, ...], namespace: str) -> Iterator[tuple[str, list[dict]]]:
    """(where the rules come from, the rules) for every binding that names the user, cluster-wide
    first, then in `namespace` (VisitRulesFor)."""
    for binding in reads.list_items(cluster, "ClusterRoleBinding"):
        for subject in binding.get("subjects") or []:
            if isinstance(subject, dict) and applies_to(subject, user, groups, ""):
                ref = binding.get("roleRef") or {}
                source = (
                    f'ClusterRoleBinding "{binding["metadata"]["name"]}" of {ref.get("kind", "")} '
                    f'"{ref.get("name", "")}" to {_describe_subject(subject)}'
                )
                yield source, _role_rules(cluster, ref, "")
                break
    if not namespace:
        return
    for binding in reads.list_items(cluster, "RoleBinding", namespace):
        for subject in binding.get("subjects") or []:
            if isinstance(subject, dict) and applies_to(subject, user, groups, namespace):
                ref = binding.get("roleRef") or {}
                source = (
                    f'RoleBinding "{binding["metadata"]["name"]}/{namespace}" of {ref.get("kind", "")} '
                    f'"{ref.get("name", "")}" to {_describe_subject(subject)}'
                )
                yield source, _role_rules(cluster, ref, namespace)
                break


def authorize(cluster, user: str, groups: tuple[str, ...], attributes: Attributes) -> tuple[bool, str]:
    """(allowed, reason): upstream's `RBAC: allowed by …` naming the binding; no reason when denied."""
    namespace = attributes.namespace if attributes.is_resource else ""
    for source, rules in grants(cluster, user, groups, namespace):
        if any(rule_allows(attributes, rule) for rule in rules):
            return True, f"RBAC: allowed by {source}"
    return False, ""


def rules_for(cluster, user: str, groups: tuple[str, ...], namespace: str) -> tuple[list[dict], list[dict]]:
    """(resource rules, non-resource rules) that apply in `namespace`: SelfSubjectRulesReview."""
    resource_rules: list[dict] = []
    url_rules: list[dict] = []
    for _source, rules in grants(cluster, user, groups, namespace):
        for rule in rules:
            if rule.get("nonResourceURLs"):
                url_rules.append(
                    {"verbs": rule.get("verbs") or [], "nonResourceURLs": rule["nonResourceURLs"]}
                )
            else:
                shaped = {
                    k: rule[k] for k in ("verbs", "apiGroups", "resources", "resourceNames") if rule.get(k)
                }
                shaped.setdefault("verbs", [])
                resource_rules.append(shaped)
    return resource_rules, url_rules

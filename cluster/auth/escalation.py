"""RBAC's escalation check, as kube-apiserver's RBAC storage makes it (upstream
`pkg/registry/rbac/validation`): a Role or ClusterRole may only grant what its writer holds, and a
binding may only bind a role whose rules its writer holds, unless the writer may `escalate` (roles)
or `bind` (that role). A ServiceAccount given `create roles` cannot make itself cluster-admin.

The writer's rules are its RBAC rules where the object lives (ClusterRoleBindings, and the
RoleBindings of a Role's or RoleBinding's namespace); KubeSim's classroom policy answers
`escalate` and `bind` for the teacher and a sandbox's owner, who are its cluster-admins.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from cluster.apiserver import reads
from cluster.apiserver.errors import ApiError, forbidden
from cluster.auth import rbac
from cluster.auth.access import RBAC_GROUP, Caller, acting_caller, permission
from cluster.auth.rbac import Attributes
from cluster.kinds.rbac.rules import breakdown, compact

ROLE_KINDS = {"Role": "roles", "ClusterRole": "clusterroles"}
BINDING_KINDS = {"RoleBinding": "rolebindings", "ClusterRoleBinding": "clusterrolebindings"}
# What the aggregationRule needs: it can gather anything (fullAuthority upstream).
_FULL_AUTHORITY = [
    {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
    {"verbs": ["*"], "nonResourceURLs": ["*"]},
]
# Fields whose change alone never needs the check (upstream's IsOnlyMutatingGCFields).
_GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion", "generation")


def checker(request) -> Callable[[object, str, str, dict], None]:
    """The check for one request's writer (the user it acts as), for the write path to call on
    every write; only an RBAC write looks the writer up."""

    def check(cluster, verb: str, kind: str, body: dict) -> None:
        if kind in ROLE_KINDS or kind in BINDING_KINDS:
            confirm(acting_caller(request), cluster, verb, kind, body)

    return check


def _covers(owner: dict, sub: dict) -> bool:
    """ruleCovers, for a subrule of one verb and one group and resource (and name) or URL: what the
    authorizer's own match of that request answers, but that a named right is not all of them."""
    verb = sub["verbs"][0]
    if "nonResourceURLs" in sub:
        return rbac.rule_allows(Attributes(verb, path=sub["nonResourceURLs"][0]), owner)
    names = sub.get("resourceNames")
    if not names and owner.get("resourceNames"):
        return False
    attributes = Attributes.of(
        verb, sub["resources"][0], sub["apiGroups"][0], "", names[0] if names else "", ""
    )
    return rbac.rule_allows(attributes, owner)


def _go_strings(values: list[str]) -> str:
    """Go's %q of a []string: ["a" "b"]."""
    return "[" + " ".join(json.dumps(v, ensure_ascii=False) for v in values) + "]"


def compact_string(rule: dict) -> str:
    """rbacv1helpers.CompactString: {APIGroups:[""], Resources:["pods"], Verbs:["get"]}."""
    parts = [
        f"{label}:{_go_strings(rule[key])}"
        for label, key in (
            ("APIGroups", "apiGroups"),
            ("Resources", "resources"),
            ("NonResourceURLs", "nonResourceURLs"),
            ("ResourceNames", "resourceNames"),
            ("Verbs", "verbs"),
        )
        if rule.get(key)
    ]
    return "{" + ", ".join(parts) + "}"


def missing_rights(owned: list[dict], wanted: list[dict]) -> list[str]:
    """Covers + CompactRules + CompactString: the rights `wanted` grants that `owned` does not
    hold, as the sorted lines of upstream's message; empty when every one is held."""
    uncovered = [s for rule in wanted for s in breakdown(rule) if not any(_covers(o, s) for o in owned)]
    return sorted({compact_string(rule) for rule in compact(uncovered)})


def _only_gc_fields_change(cluster, kind: str, namespace: str | None, body: dict) -> bool:
    try:
        old = reads.get(cluster, kind, namespace, body["metadata"]["name"])
    except ApiError:
        return False

    def essence(obj: dict) -> dict:
        meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _GC_FIELDS}
        return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": meta}

    return essence(old) == essence(body)


def confirm(caller: Caller, cluster, verb: str, kind: str, body: dict) -> None:
    """Raise upstream's 403 if `caller` writing `body` would grant rights it does not hold."""
    meta = body.get("metadata") or {}
    name = str(meta.get("name", ""))
    namespace = str(meta.get("namespace") or "") if kind in ("Role", "RoleBinding") else ""
    if verb != "create" and _only_gc_fields_change(cluster, kind, namespace or None, body):
        return
    if kind in ROLE_KINDS:
        plural = ROLE_KINDS[kind]
        if permission(caller, cluster, "escalate", plural, RBAC_GROUP, namespace=namespace, name=name)[0]:
            return
        wanted = [r for r in body.get("rules") or [] if isinstance(r, dict)]
    else:
        plural = BINDING_KINDS[kind]
        ref = body.get("roleRef") or {}
        ref_kind, ref_name = str(ref.get("kind", "")), str(ref.get("name", ""))
        ref_plural = ROLE_KINDS.get(ref_kind, "")
        if not ref_plural:
            return  # validation refuses a roleRef of another kind
        # `bind` is asked in the binding's namespace (a RoleBinding may bind a ClusterRole there)
        if permission(caller, cluster, "bind", ref_plural, RBAC_GROUP, namespace=namespace, name=ref_name)[0]:
            return
        try:
            role = reads.get(cluster, ref_kind, namespace if ref_kind == "Role" else None, ref_name)
        except ApiError as missing:
            raise forbidden(plural, name, missing.message, RBAC_GROUP) from None
        wanted = (
            rbac.cluster_role_rules(cluster, role) if ref_kind == "ClusterRole" else role.get("rules") or []
        )
    resource_rules, url_rules = rbac.rules_for(cluster, caller.name, caller.groups, namespace)
    owned = resource_rules + url_rules
    groups = _go_strings(list(caller.groups))
    lines = missing_rights(owned, wanted)
    if lines:
        reason = (
            f"user {json.dumps(caller.name, ensure_ascii=False)} (groups={groups}) is attempting to grant "
            "RBAC permissions not currently held:\n" + "\n".join(lines)
        )
        raise forbidden(plural, name, reason, RBAC_GROUP)
    if kind == "ClusterRole" and body.get("aggregationRule") and missing_rights(owned, _FULL_AUTHORITY):
        raise forbidden(
            plural, name, "must have cluster-admin privileges to use the aggregationRule", RBAC_GROUP
        )

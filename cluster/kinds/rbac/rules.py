"""What Roles and ClusterRoles share: ValidatePolicyRule and kubectl's RoleDescriber, which breaks
the rules down and compacts them (k8s.io/kubectl/pkg/util/rbac) before printing one row each."""

from __future__ import annotations

from cluster.apiserver.fielderrors import FieldErrors
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tabwriter import tabwrite


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def validate_rules(errors: FieldErrors, rules: object, namespaced: bool) -> None:
    """ValidatePolicyRule for each rule under `rules`."""
    if rules is None:
        return
    if not isinstance(rules, list):
        errors.type_error("rules", rules, "a list of PolicyRules")
        return
    for index, rule in enumerate(rules):
        path = f"rules[{index}]"
        rule = rule if isinstance(rule, dict) else {}
        if not _strings(rule.get("verbs")):
            errors.required(f"{path}.verbs", "verbs must contain at least one value")
        urls = _strings(rule.get("nonResourceURLs"))
        if urls:
            shown = "[]string{" + ", ".join(f'"{u}"' for u in urls) + "}"
            if namespaced:
                errors.invalid_shown(
                    f"{path}.nonResourceURLs", shown, "namespaced rules cannot apply to non-resource URLs"
                )
            if any(_strings(rule.get(k)) for k in ("apiGroups", "resources", "resourceNames")):
                errors.invalid_shown(
                    f"{path}.nonResourceURLs",
                    shown,
                    "rules cannot apply to both regular resources and non-resource URLs",
                )
            continue
        if not _strings(rule.get("apiGroups")):
            errors.required(f"{path}.apiGroups", "resource rules must supply at least one api group")
        if not _strings(rule.get("resources")):
            errors.required(f"{path}.resources", "resource rules must supply at least one resource")


# -- kubectl describe role|clusterrole ------------------------------------------------------------
def breakdown(rule: dict) -> list[dict]:
    """BreakdownRule: one rule per group, resource, verb (and resource name); URLs per verb."""
    verbs, names = _strings(rule.get("verbs")), _strings(rule.get("resourceNames"))
    found = []
    for group in _strings(rule.get("apiGroups")):
        for resource in _strings(rule.get("resources")):
            for verb in verbs:
                for name in names or [None]:
                    found.append(
                        {
                            "verbs": [verb],
                            "apiGroups": [group],
                            "resources": [resource],
                            "resourceNames": [name],
                        }
                        if name is not None
                        else {"verbs": [verb], "apiGroups": [group], "resources": [resource]}
                    )
    for url in _strings(rule.get("nonResourceURLs")):
        found += [{"verbs": [verb], "nonResourceURLs": [url]} for verb in verbs]
    return found


def compact(rules: list[dict]) -> list[dict]:
    """CompactRules: simple rules of one group, resource and name gather their verbs (first seen
    order); the rest stay as they are."""
    compacted: list[dict] = []
    simple: dict[tuple, dict] = {}
    for rule in rules:
        names = rule.get("resourceNames") or []
        if rule.get("nonResourceURLs") or len(names) > 1:
            compacted.append(rule)
            continue
        key = (rule["apiGroups"][0], rule["resources"][0], names[0] if names else None)
        if key in simple:
            simple[key]["verbs"] = [*simple[key]["verbs"], *rule["verbs"]]
        else:
            simple[key] = dict(rule)
            compacted.append(simple[key])
    return compacted


def _go_list(values: list[str]) -> str:
    return "[" + " ".join(values) + "]"


def _go_string(rule: dict) -> str:
    """The generated PolicyRule.String() kubectl sorts the rows by."""
    return (
        f"&PolicyRule{{Verbs:{_go_list(rule.get('verbs') or [])},"
        f"APIGroups:{_go_list(rule.get('apiGroups') or [])},"
        f"Resources:{_go_list(rule.get('resources') or [])},"
        f"ResourceNames:{_go_list(rule.get('resourceNames') or [])},"
        f"NonResourceURLs:{_go_list(rule.get('nonResourceURLs') or [])},}}"
    )


def _resource_group(rule: dict) -> str:
    """CombineResourceGroup: `pods`, `deployments.apps`, `deployments.apps/scale` (each row holds
    one resource and one group once compacted)."""
    resources, groups = rule.get("resources") or [], rule.get("apiGroups") or []
    if not resources:
        return ""
    resource, _, subresource = resources[0].partition("/")
    combined = f"{resource}.{groups[0]}" if groups and groups[0] else resource
    return f"{combined}/{subresource}" if subresource else combined


def describe_role(role: dict) -> str:
    meta = role.get("metadata") or {}
    rows = [rule for r in role.get("rules") or [] if isinstance(r, dict) for rule in breakdown(r)]
    rows = sorted(compact(rows), key=_go_string)
    lines = [f"Name:\t{meta.get('name', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += [
        "PolicyRule:",
        "  Resources\tNon-Resource URLs\tResource Names\tVerbs",
        "  ---------\t-----------------\t--------------\t-----",
    ]
    for rule in rows:
        urls, names, verbs = (
            _go_list(rule.get(k) or []) for k in ("nonResourceURLs", "resourceNames", "verbs")
        )
        lines.append(f"  {_resource_group(rule)}\t{urls}\t{names}\t{verbs}")
    return tabwrite("\n".join(lines) + "\n")

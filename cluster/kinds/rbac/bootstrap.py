"""The bootstrap policy: the ClusterRoles and ClusterRoleBindings kube-apiserver creates at start
(upstream `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`, policy.go), the ones a classroom
meets: cluster-admin, admin, edit, view (aggregated from the system:aggregate-to-* roles), the
roles every user holds (system:basic-user, system:discovery, system:public-info-viewer) and those
of the control plane's components. The per-controller roles (system:controller:*) are not served.

Like the built-in namespaces they are served without being stored (`BuiltinObjects`); a write
stores one, and deleting a stored copy brings the bootstrap one back, as the API server's
reconciler does at its next start.
"""

from __future__ import annotations

import copy
import uuid

GROUP = "rbac.authorization.k8s.io"
ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"


def rule(verbs: list[str], groups: list[str], resources: list[str], names: list[str] | None = None) -> dict:
    found = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if names:
        found["resourceNames"] = names
    return found


def urls(verbs: list[str], paths: list[str]) -> dict:
    return {"verbs": verbs, "nonResourceURLs": paths}


_EVENTS = rule(["create", "patch", "update"], ["", "events.k8s.io"], ["events"])

# name → (extra labels, rules); an aggregated role's rules are its aggregate-to role's and below.
ROLES: dict[str, tuple[dict, list[dict]]] = {
    "cluster-admin": ({}, [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    "system:aggregate-to-admin": (
        {f"{AGGREGATE_TO}admin": "true"},
        [
            rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
            rule(ALL, [GROUP], ["rolebindings", "roles"]),
        ],
    ),
    "system:aggregate-to-edit": (
        {f"{AGGREGATE_TO}edit": "true"},
        [
            rule(
                READ,
                [""],
                ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
            ),
            rule(["impersonate"], [""], ["serviceaccounts"]),
            rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
            rule(["create"], [""], ["pods/eviction"]),
            rule(
                WRITE,
                [""],
                [
                    "configmaps",
                    "events",
                    "persistentvolumeclaims",
                    "replicationcontrollers",
                    "replicationcontrollers/scale",
                    "secrets",
                    "serviceaccounts",
                    "services",
                    "services/proxy",
                ],
            ),
            rule(["create"], [""], ["serviceaccounts/token"]),
            rule(
                WRITE,
                ["apps"],
                [
                    "daemonsets",
                    "deployments",
                    "deployments/rollback",
                    "deployments/scale",
                    "replicasets",
                    "replicasets/scale",
                    "statefulsets",
                    "statefulsets/scale",
                ],
            ),
            rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
            rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
            rule(
                WRITE,
                ["extensions"],
                [
                    "daemonsets",
                    "deployments",
                    "deployments/rollback",
                    "deployments/scale",
                    "ingresses",
                    "networkpolicies",
                    "replicasets",
                    "replicasets/scale",
                    "replicationcontrollers/scale",
                ],
            ),
            rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
            rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
            rule(ALL, ["coordination.k8s.io"], ["leases"]),
        ],
    ),
    "system:aggregate-to-view": (
        {f"{AGGREGATE_TO}view": "true"},
        [
            rule(
                READ,
                [""],
                [
                    "configmaps",
                    "endpoints",
                    "persistentvolumeclaims",
                    "persistentvolumeclaims/status",
                    "pods",
                    "replicationcontrollers",
                    "replicationcontrollers/scale",
                    "serviceaccounts",
                    "services",
                    "services/status",
                ],
            ),
            rule(
                READ,
                [""],
                [
                    "bindings",
                    "events",
                    "limitranges",
                    "namespaces/status",
                    "pods/log",
                    "pods/status",
                    "replicationcontrollers/status",
                    "resourcequotas",
                    "resourcequotas/status",
                ],
            ),
            rule(READ, [""], ["namespaces"]),
            rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
            rule(
                READ,
                ["apps"],
                [
                    "controllerrevisions",
                    "daemonsets",
                    "daemonsets/status",
                    "deployments",
                    "deployments/scale",
                    "deployments/status",
                    "replicasets",
                    "replicasets/scale",
                    "replicasets/status",
                    "statefulsets",
                    "statefulsets/scale",
                    "statefulsets/status",
                ],
            ),
            rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
            rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
            rule(
                READ,
                ["extensions"],
                [
                    "daemonsets",
                    "daemonsets/status",
                    "deployments",
                    "deployments/scale",
                    "deployments/status",
                    "ingresses",
                    "ingresses/status",
                    "networkpolicies",
                    "replicasets",
                    "replicasets/scale",
                    "replicasets/status",
                    "replicationcontrollers/scale",
                ],
            ),
            rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
            rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
        ],
    ),
    "system:auth-delegator": (
        {},
        [
            rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
            rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
        ],
    ),
    "system:basic-user": (
        {},
        [
            rule(
                ["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]
            ),
            rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
        ],
    ),
    "system:discovery": (
        {},
        [
            urls(
                ["get"],
                [
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                    "/healthz",
                    "/livez",
                    "/openapi",
                    "/openapi/*",
                    "/readyz",
                    "/version",
                    "/version/",
                ],
            )
        ],
    ),
    "system:kube-controller-manager": (
        {},
        [
            _EVENTS,
            rule(["create"], ["coordination.k8s.io"], ["leases"]),
            rule(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-controller-manager"]),
            rule(["create"], [""], ["secrets", "serviceaccounts"]),
            rule(["delete"], [""], ["secrets"]),
            rule(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
            rule(["update"], [""], ["secrets", "serviceaccounts"]),
            rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
            rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
            rule(["list", "watch"], ["*"], ["*"]),
            rule(["create"], [""], ["serviceaccounts/token"]),
        ],
    ),
    "system:kube-scheduler": (
        {},
        [
            _EVENTS,
            rule(["create"], ["coordination.k8s.io"], ["leases"]),
            rule(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-scheduler"]),
            rule(READ, [""], ["nodes"]),
            rule(["delete", "get", "list", "watch"], [""], ["pods"]),
            rule(["create"], [""], ["bindings", "pods/binding"]),
            rule(["patch", "update"], [""], ["pods/status"]),
            rule(READ, [""], ["replicationcontrollers", "services"]),
            rule(READ, ["apps", "extensions"], ["replicasets"]),
            rule(READ, ["apps"], ["statefulsets"]),
            rule(READ, ["policy"], ["poddisruptionbudgets"]),
            rule(READ, [""], ["persistentvolumeclaims", "persistentvolumes"]),
            rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
            rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
            rule(READ, ["storage.k8s.io"], ["csinodes"]),
            rule(READ, [""], ["namespaces"]),
            rule(READ, ["storage.k8s.io"], ["csidrivers"]),
            rule(READ, ["storage.k8s.io"], ["csistoragecapacities"]),
        ],
    ),
    "system:monitoring": (
        {},
        [
            urls(
                ["get"],
                [
                    "/healthz",
                    "/healthz/*",
                    "/livez",
                    "/livez/*",
                    "/metrics",
                    "/metrics/slis",
                    "/readyz",
                    "/readyz/*",
                ],
            )
        ],
    ),
    "system:node-proxier": (
        {},
        [
            rule(["list", "watch"], [""], ["endpoints", "services"]),
            rule(READ, [""], ["nodes"]),
            _EVENTS,
            rule(["list", "watch"], ["discovery.k8s.io"], ["endpointslices"]),
        ],
    ),
    "system:public-info-viewer": (
        {},
        [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])],
    ),
    "system:service-account-issuer-discovery": (
        {},
        [urls(["get"], ["/.well-known/openid-configuration", "/openid/v1/jwks"])],
    ),
    "system:volume-scheduler": (
        {},
        [
            rule(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumes"]),
            rule(READ, ["storage.k8s.io"], ["storageclasses"]),
            rule(["get", "list", "patch", "update", "watch"], [""], ["persistentvolumeclaims"]),
        ],
    ),
}

# The aggregated roles: name → (extra labels, the label their aggregationRule selects).
AGGREGATED: dict[str, tuple[dict, str]] = {
    "admin": ({}, f"{AGGREGATE_TO}admin"),
    "edit": ({f"{AGGREGATE_TO}admin": "true"}, f"{AGGREGATE_TO}edit"),
    "view": ({f"{AGGREGATE_TO}edit": "true"}, f"{AGGREGATE_TO}view"),
}


def _subject(kind: str, name: str, namespace: str = "") -> dict:
    if kind == "ServiceAccount":
        return {"kind": kind, "name": name, "namespace": namespace}
    return {"apiGroup": GROUP, "kind": kind, "name": name}


# binding name (= its ClusterRole's) → subjects
BINDINGS: dict[str, list[dict]] = {
    "cluster-admin": [_subject("Group", "system:masters")],
    "system:basic-user": [_subject("Group", "system:authenticated")],
    "system:discovery": [_subject("Group", "system:authenticated")],
    "system:kube-controller-manager": [_subject("User", "system:kube-controller-manager")],
    "system:kube-scheduler": [_subject("User", "system:kube-scheduler")],
    "system:monitoring": [_subject("Group", "system:monitoring")],
    "system:node-proxier": [_subject("User", "system:kube-proxy")],
    "system:public-info-viewer": [
        _subject("Group", "system:authenticated"),
        _subject("Group", "system:unauthenticated"),
    ],
    "system:service-account-issuer-discovery": [_subject("Group", "system:serviceaccounts")],
    "system:volume-scheduler": [_subject("User", "system:kube-scheduler")],
}

ROLE_NAMES = tuple(sorted([*ROLES, *AGGREGATED]))
BINDING_NAMES = tuple(sorted(BINDINGS))


def _metadata(cluster, kind: str, name: str, labels: dict) -> dict:
    return {
        "name": name,
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:{kind}:{name}")),
        "resourceVersion": "1",
        "creationTimestamp": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults", **labels},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"},
    }


def aggregated_rules(label: str) -> list[dict]:
    """The rules the clusterrole-aggregation controller gathers for a bootstrap aggregated role:
    those of every bootstrap role carrying the label, and of the aggregated roles carrying it."""
    found: list[dict] = []
    for name in ROLE_NAMES:
        labels = ROLES[name][0] if name in ROLES else AGGREGATED[name][0]
        if labels.get(label) == "true":
            rules = ROLES[name][1] if name in ROLES else aggregated_rules(AGGREGATED[name][1])
            found += [r for r in rules if r not in found]
    return found


def cluster_role(cluster, namespace: str, name: str) -> dict:
    role = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole"}
    if name in AGGREGATED:
        labels, selects = AGGREGATED[name]
        role["metadata"] = _metadata(cluster, "ClusterRole", name, labels)
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {selects: "true"}}]}
        role["rules"] = copy.deepcopy(aggregated_rules(selects))
        return role
    labels, rules = ROLES[name]
    role["metadata"] = _metadata(cluster, "ClusterRole", name, labels)
    role["rules"] = copy.deepcopy(rules)
    return role


def cluster_role_binding(cluster, namespace: str, name: str) -> dict:
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ClusterRoleBinding",
        "metadata": _metadata(cluster, "ClusterRoleBinding", name, {}),
        "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": name},
        "subjects": copy.deepcopy(BINDINGS[name]),
    }

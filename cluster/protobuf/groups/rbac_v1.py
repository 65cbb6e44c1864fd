"""Protobuf field numbers of k8s.io.api.rbac.v1:
`rbac/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.rbac.v1"
GROUP_VERSION = "rbac.authorization.k8s.io/v1"
KINDS = ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")

MESSAGES = {
    "AggregationRule": (
        (1, "clusterRoleSelectors", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "ro"),
    ),
    "ClusterRole": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "rules", "PolicyRule", "r"),
        (3, "aggregationRule", "AggregationRule", "*o"),
    ),
    "ClusterRoleBinding": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "subjects", "Subject", "ro"),
        (3, "roleRef", "RoleRef", ""),
    ),
    "PolicyRule": (
        (1, "verbs", "string", "r"),
        (2, "apiGroups", "string", "ro"),
        (3, "resources", "string", "ro"),
        (4, "resourceNames", "string", "ro"),
        (5, "nonResourceURLs", "string", "ro"),
    ),
    "Role": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "rules", "PolicyRule", "r"),
    ),
    "RoleBinding": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "subjects", "Subject", "ro"),
        (3, "roleRef", "RoleRef", ""),
    ),
    "RoleRef": (
        (1, "apiGroup", "string", ""),
        (2, "kind", "string", ""),
        (3, "name", "string", ""),
    ),
    "Subject": (
        (1, "kind", "string", ""),
        (2, "apiGroup", "string", "o"),
        (3, "name", "string", ""),
        (4, "namespace", "string", "o"),
    ),
}

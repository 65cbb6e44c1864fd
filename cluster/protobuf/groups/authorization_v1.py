"""Protobuf field numbers of k8s.io.api.authorization.v1:
`authorization/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.authorization.v1"
GROUP_VERSION = "authorization.k8s.io/v1"
KINDS = ("SelfSubjectAccessReview", "SelfSubjectRulesReview")

MESSAGES = {
    "FieldSelectorAttributes": (
        (1, "rawSelector", "string", "o"),
        (2, "requirements", "k8s.io.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement", "ro"),
    ),
    "LabelSelectorAttributes": (
        (1, "rawSelector", "string", "o"),
        (2, "requirements", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "ro"),
    ),
    "NonResourceAttributes": (
        (1, "path", "string", "o"),
        (2, "verb", "string", "o"),
    ),
    "NonResourceRule": (
        (1, "verbs", "string", "r"),
        (2, "nonResourceURLs", "string", "ro"),
    ),
    "ResourceAttributes": (
        (1, "namespace", "string", "o"),
        (2, "verb", "string", "o"),
        (3, "group", "string", "o"),
        (4, "version", "string", "o"),
        (5, "resource", "string", "o"),
        (6, "subresource", "string", "o"),
        (7, "name", "string", "o"),
        (8, "fieldSelector", "FieldSelectorAttributes", "*o"),
        (9, "labelSelector", "LabelSelectorAttributes", "*o"),
    ),
    "ResourceRule": (
        (1, "verbs", "string", "r"),
        (2, "apiGroups", "string", "ro"),
        (3, "resources", "string", "ro"),
        (4, "resourceNames", "string", "ro"),
    ),
    "SelfSubjectAccessReview": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "SelfSubjectAccessReviewSpec", ""),
        (3, "status", "SubjectAccessReviewStatus", "o"),
    ),
    "SelfSubjectAccessReviewSpec": (
        (1, "resourceAttributes", "ResourceAttributes", "*o"),
        (2, "nonResourceAttributes", "NonResourceAttributes", "*o"),
    ),
    "SelfSubjectRulesReview": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "SelfSubjectRulesReviewSpec", ""),
        (3, "status", "SubjectRulesReviewStatus", "o"),
    ),
    "SelfSubjectRulesReviewSpec": ((1, "namespace", "string", "o"),),
    "SubjectAccessReviewStatus": (
        (1, "allowed", "bool", ""),
        (4, "denied", "bool", "o"),
        (2, "reason", "string", "o"),
        (3, "evaluationError", "string", "o"),
    ),
    "SubjectRulesReviewStatus": (
        (1, "resourceRules", "ResourceRule", "r"),
        (2, "nonResourceRules", "NonResourceRule", "r"),
        (3, "incomplete", "bool", ""),
        (4, "evaluationError", "string", "o"),
    ),
}

"""Protobuf field numbers of k8s.io.apimachinery.pkg.apis.meta.v1:
`pkg/apis/meta/v1/generated.proto` in k8s.io/apimachinery v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.apimachinery.pkg.apis.meta.v1"
GROUP_VERSION = ""
KINDS = ("CreateOptions", "DeleteOptions", "Status")

MESSAGES = {
    "Condition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "observedGeneration", "int64", "o"),
        (4, "lastTransitionTime", "Time", ""),
        (5, "reason", "string", ""),
        (6, "message", "string", ""),
    ),
    "CreateOptions": (
        (1, "dryRun", "string", "ro"),
        (3, "fieldManager", "string", "o"),
        (4, "fieldValidation", "string", "o"),
    ),
    "DeleteOptions": (
        (1, "gracePeriodSeconds", "int64", "*o"),
        (2, "preconditions", "Preconditions", "*o"),
        (3, "orphanDependents", "bool", "*o"),
        (4, "propagationPolicy", "string", "*o"),
        (5, "dryRun", "string", "ro"),
        (6, "ignoreStoreReadErrorWithClusterBreakingPotential", "bool", "*o"),
    ),
    "FieldSelectorRequirement": (
        (1, "key", "string", ""),
        (2, "operator", "string", ""),
        (3, "values", "string", "ro"),
    ),
    "FieldsV1": ((1, "Raw", "bytes", ""),),
    "LabelSelector": (
        (1, "matchLabels", "map<string,string>", "o"),
        (2, "matchExpressions", "LabelSelectorRequirement", "ro"),
    ),
    "LabelSelectorRequirement": (
        (1, "key", "string", ""),
        (2, "operator", "string", ""),
        (3, "values", "string", "ro"),
    ),
    "ListMeta": (
        (1, "selfLink", "string", "o"),
        (2, "resourceVersion", "string", "o"),
        (3, "continue", "string", "o"),
        (4, "remainingItemCount", "int64", "*o"),
    ),
    "ManagedFieldsEntry": (
        (1, "manager", "string", "o"),
        (2, "operation", "string", "o"),
        (3, "apiVersion", "string", "o"),
        (4, "time", "Time", "*o"),
        (6, "fieldsType", "string", "o"),
        (7, "fieldsV1", "FieldsV1", "*o"),
        (8, "subresource", "string", "o"),
    ),
    "MicroTime": (
        (1, "seconds", "int64", "o"),
        (2, "nanos", "int32", "o"),
    ),
    "ObjectMeta": (
        (1, "name", "string", "o"),
        (2, "generateName", "string", "o"),
        (3, "namespace", "string", "o"),
        (4, "selfLink", "string", "o"),
        (5, "uid", "string", "o"),
        (6, "resourceVersion", "string", "o"),
        (7, "generation", "int64", "o"),
        (8, "creationTimestamp", "Time", "o"),
        (9, "deletionTimestamp", "Time", "*o"),
        (10, "deletionGracePeriodSeconds", "int64", "*o"),
        (11, "labels", "map<string,string>", "o"),
        (12, "annotations", "map<string,string>", "o"),
        (13, "ownerReferences", "OwnerReference", "ro"),
        (14, "finalizers", "string", "ro"),
        (17, "managedFields", "ManagedFieldsEntry", "ro"),
    ),
    "OwnerReference": (
        (5, "apiVersion", "string", ""),
        (1, "kind", "string", ""),
        (3, "name", "string", ""),
        (4, "uid", "string", ""),
        (6, "controller", "bool", "*o"),
        (7, "blockOwnerDeletion", "bool", "*o"),
    ),
    "Preconditions": (
        (1, "uid", "string", "*o"),
        (2, "resourceVersion", "string", "*o"),
    ),
    "Status": (
        (1, "metadata", "ListMeta", "o"),
        (2, "status", "string", "o"),
        (3, "message", "string", "o"),
        (4, "reason", "string", "o"),
        (5, "details", "StatusDetails", "*o"),
        (6, "code", "int32", "o"),
    ),
    "StatusCause": (
        (1, "reason", "string", "o"),
        (2, "message", "string", "o"),
        (3, "field", "string", "o"),
    ),
    "StatusDetails": (
        (1, "name", "string", "o"),
        (2, "group", "string", "o"),
        (3, "kind", "string", "o"),
        (6, "uid", "string", "o"),
        (4, "causes", "StatusCause", "ro"),
        (5, "retryAfterSeconds", "int32", "o"),
    ),
    "Time": (
        (1, "seconds", "int64", "o"),
        (2, "nanos", "int32", "o"),
    ),
}

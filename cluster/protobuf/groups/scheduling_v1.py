"""Protobuf field numbers of k8s.io.api.scheduling.v1:
`scheduling/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.scheduling.v1"
GROUP_VERSION = "scheduling.k8s.io/v1"
KINDS = ("PriorityClass",)

MESSAGES = {
    "PriorityClass": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "value", "int32", ""),
        (3, "globalDefault", "bool", "o"),
        (4, "description", "string", "o"),
        (5, "preemptionPolicy", "string", "*o"),
    ),
}

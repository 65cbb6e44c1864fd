"""Protobuf field numbers of k8s.io.apimachinery.pkg.util.intstr:
`pkg/util/intstr/generated.proto` in k8s.io/apimachinery v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.apimachinery.pkg.util.intstr"
GROUP_VERSION = ""
KINDS = ()

MESSAGES = {
    "IntOrString": (
        (1, "type", "int64", ""),
        (2, "intVal", "int32", ""),
        (3, "strVal", "string", ""),
    ),
}

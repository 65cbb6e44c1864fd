"""Protobuf field numbers of k8s.io.apimachinery.pkg.api.resource:
`pkg/api/resource/generated.proto` in k8s.io/apimachinery v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.apimachinery.pkg.api.resource"
GROUP_VERSION = ""
KINDS = ()

MESSAGES = {
    "Quantity": ((1, "string", "string", "o"),),
}

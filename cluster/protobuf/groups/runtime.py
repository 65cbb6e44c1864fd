"""Protobuf field numbers of k8s.io.apimachinery.pkg.runtime:
`pkg/runtime/generated.proto` in k8s.io/apimachinery v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.apimachinery.pkg.runtime"
GROUP_VERSION = ""
KINDS = ("Unknown",)

MESSAGES = {
    "RawExtension": ((1, "raw", "bytes", ""),),
    "TypeMeta": (
        (1, "apiVersion", "string", "o"),
        (2, "kind", "string", "o"),
    ),
    "Unknown": (
        (1, "typeMeta", "TypeMeta", "i"),
        (2, "raw", "bytes", ""),
        (3, "contentEncoding", "string", ""),
        (4, "contentType", "string", ""),
    ),
}

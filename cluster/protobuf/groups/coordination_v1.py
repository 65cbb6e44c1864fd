"""Protobuf field numbers of k8s.io.api.coordination.v1:
`coordination/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.coordination.v1"
GROUP_VERSION = "coordination.k8s.io/v1"
KINDS = ("Lease",)

MESSAGES = {
    "Lease": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "LeaseSpec", "o"),
    ),
    "LeaseSpec": (
        (1, "holderIdentity", "string", "*o"),
        (2, "leaseDurationSeconds", "int32", "*o"),
        (3, "acquireTime", "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", "*o"),
        (4, "renewTime", "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", "*o"),
        (5, "leaseTransitions", "int32", "*o"),
        (6, "strategy", "string", "*o"),
        (7, "preferredHolder", "string", "*o"),
    ),
}

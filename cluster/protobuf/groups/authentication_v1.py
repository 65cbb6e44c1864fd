"""Protobuf field numbers of k8s.io.api.authentication.v1:
`authentication/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.authentication.v1"
GROUP_VERSION = "authentication.k8s.io/v1"
KINDS = ("SelfSubjectReview",)

MESSAGES = {
    "ExtraValue": ((1, "items", "string", "ro"),),
    "SelfSubjectReview": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "status", "SelfSubjectReviewStatus", "o"),
    ),
    "SelfSubjectReviewStatus": ((1, "userInfo", "UserInfo", "o"),),
    "UserInfo": (
        (1, "username", "string", "o"),
        (2, "uid", "string", "o"),
        (3, "groups", "string", "ro"),
        (4, "extra", "map<string,k8s.io.api.authentication.v1.ExtraValue>", "o"),
    ),
}

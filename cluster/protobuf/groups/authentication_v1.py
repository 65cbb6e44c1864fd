"""Protobuf field numbers of k8s.io.api.authentication.v1:
`authentication/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.authentication.v1"
GROUP_VERSION = "authentication.k8s.io/v1"
KINDS = ("SelfSubjectReview", "TokenRequest")

MESSAGES = {
    "BoundObjectReference": (
        (1, "kind", "string", "o"),
        (2, "apiVersion", "string", "o"),
        (3, "name", "string", "o"),
        (4, "uID", "string", "o"),
    ),
    "ExtraValue": ((1, "items", "string", "ro"),),
    "SelfSubjectReview": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "status", "SelfSubjectReviewStatus", "o"),
    ),
    "SelfSubjectReviewStatus": ((1, "userInfo", "UserInfo", "o"),),
    "TokenRequest": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "TokenRequestSpec", ""),
        (3, "status", "TokenRequestStatus", "o"),
    ),
    "TokenRequestSpec": (
        (1, "audiences", "string", "r"),
        (4, "expirationSeconds", "int64", "*"),
        (3, "boundObjectRef", "BoundObjectReference", "*"),
    ),
    "TokenRequestStatus": (
        (1, "token", "string", ""),
        (2, "expirationTimestamp", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", ""),
    ),
    "UserInfo": (
        (1, "username", "string", "o"),
        (2, "uid", "string", "o"),
        (3, "groups", "string", "ro"),
        (4, "extra", "map<string,k8s.io.api.authentication.v1.ExtraValue>", "o"),
    ),
}

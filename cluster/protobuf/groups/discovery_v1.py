"""Protobuf field numbers of k8s.io.api.discovery.v1:
`discovery/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.discovery.v1"
GROUP_VERSION = "discovery.k8s.io/v1"
KINDS = ("EndpointSlice",)

MESSAGES = {
    "Endpoint": (
        (1, "addresses", "string", "r"),
        (2, "conditions", "EndpointConditions", "o"),
        (3, "hostname", "string", "*o"),
        (4, "targetRef", "k8s.io.api.core.v1.ObjectReference", "*o"),
        (5, "deprecatedTopology", "map<string,string>", "o"),
        (6, "nodeName", "string", "*o"),
        (7, "zone", "string", "*o"),
        (8, "hints", "EndpointHints", "*o"),
    ),
    "EndpointConditions": (
        (1, "ready", "bool", "*o"),
        (2, "serving", "bool", "*o"),
        (3, "terminating", "bool", "*o"),
    ),
    "EndpointHints": (
        (1, "forZones", "ForZone", "ro"),
        (2, "forNodes", "ForNode", "ro"),
    ),
    "EndpointPort": (
        (1, "name", "string", "*o"),
        (2, "protocol", "string", "*o"),
        (3, "port", "int32", "*o"),
        (4, "appProtocol", "string", "*o"),
    ),
    "EndpointSlice": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (4, "addressType", "string", ""),
        (2, "endpoints", "Endpoint", "r"),
        (3, "ports", "EndpointPort", "r"),
    ),
    "ForNode": ((1, "name", "string", ""),),
    "ForZone": ((1, "name", "string", ""),),
}

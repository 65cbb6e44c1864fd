"""Protobuf field numbers of k8s.io.api.storage.v1:
`storage/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.storage.v1"
GROUP_VERSION = "storage.k8s.io/v1"
KINDS = ("CSIDriver", "CSINode", "StorageClass")

MESSAGES = {
    "CSIDriver": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "CSIDriverSpec", ""),
    ),
    "CSIDriverSpec": (
        (1, "attachRequired", "bool", "*o"),
        (2, "podInfoOnMount", "bool", "*o"),
        (3, "volumeLifecycleModes", "string", "ro"),
        (4, "storageCapacity", "bool", "*o"),
        (5, "fsGroupPolicy", "string", "*o"),
        (6, "tokenRequests", "TokenRequest", "ro"),
        (7, "requiresRepublish", "bool", "*o"),
        (8, "seLinuxMount", "bool", "*o"),
        (9, "nodeAllocatableUpdatePeriodSeconds", "int64", "*o"),
    ),
    "CSINode": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "CSINodeSpec", ""),
    ),
    "CSINodeDriver": (
        (1, "name", "string", ""),
        (2, "nodeID", "string", ""),
        (3, "topologyKeys", "string", "r"),
        (4, "allocatable", "VolumeNodeResources", "*o"),
    ),
    "CSINodeSpec": ((1, "drivers", "CSINodeDriver", "r"),),
    "StorageClass": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "provisioner", "string", ""),
        (3, "parameters", "map<string,string>", "o"),
        (4, "reclaimPolicy", "string", "*o"),
        (5, "mountOptions", "string", "ro"),
        (6, "allowVolumeExpansion", "bool", "*o"),
        (7, "volumeBindingMode", "string", "*o"),
        (8, "allowedTopologies", "k8s.io.api.core.v1.TopologySelectorTerm", "ro"),
    ),
    "TokenRequest": (
        (1, "audience", "string", ""),
        (2, "expirationSeconds", "int64", "*o"),
    ),
    "VolumeNodeResources": ((1, "count", "int32", "*o"),),
}

"""Protobuf field numbers of k8s.io.api.policy.v1:
`policy/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.policy.v1"
GROUP_VERSION = "policy/v1"
KINDS = ("Eviction", "PodDisruptionBudget")

MESSAGES = {
    "Eviction": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "deleteOptions", "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions", "*o"),
    ),
    "PodDisruptionBudget": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "PodDisruptionBudgetSpec", "o"),
        (3, "status", "PodDisruptionBudgetStatus", "o"),
    ),
    "PodDisruptionBudgetSpec": (
        (1, "minAvailable", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
        (2, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*o"),
        (3, "maxUnavailable", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
        (4, "unhealthyPodEvictionPolicy", "string", "*o"),
    ),
    "PodDisruptionBudgetStatus": (
        (1, "observedGeneration", "int64", "o"),
        (2, "disruptedPods", "map<string,k8s.io.apimachinery.pkg.apis.meta.v1.Time>", "o"),
        (3, "disruptionsAllowed", "int32", ""),
        (4, "currentHealthy", "int32", ""),
        (5, "desiredHealthy", "int32", ""),
        (6, "expectedPods", "int32", ""),
        (7, "conditions", "k8s.io.apimachinery.pkg.apis.meta.v1.Condition", "ro"),
    ),
}

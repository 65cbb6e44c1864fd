"""Protobuf field numbers of k8s.io.api.autoscaling.v1:
`autoscaling/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.autoscaling.v1"
GROUP_VERSION = "autoscaling/v1"
KINDS = ("HorizontalPodAutoscaler", "Scale")

MESSAGES = {
    "CrossVersionObjectReference": (
        (1, "kind", "string", ""),
        (2, "name", "string", ""),
        (3, "apiVersion", "string", "o"),
    ),
    "HorizontalPodAutoscaler": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "HorizontalPodAutoscalerSpec", "o"),
        (3, "status", "HorizontalPodAutoscalerStatus", "o"),
    ),
    "HorizontalPodAutoscalerSpec": (
        (1, "scaleTargetRef", "CrossVersionObjectReference", ""),
        (2, "minReplicas", "int32", "*o"),
        (3, "maxReplicas", "int32", ""),
        (4, "targetCPUUtilizationPercentage", "int32", "*o"),
    ),
    "HorizontalPodAutoscalerStatus": (
        (1, "observedGeneration", "int64", "*o"),
        (2, "lastScaleTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
        (3, "currentReplicas", "int32", ""),
        (4, "desiredReplicas", "int32", ""),
        (5, "currentCPUUtilizationPercentage", "int32", "*o"),
    ),
    "Scale": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "ScaleSpec", "o"),
        (3, "status", "ScaleStatus", "o"),
    ),
    "ScaleSpec": ((1, "replicas", "int32", "o"),),
    "ScaleStatus": (
        (1, "replicas", "int32", ""),
        (2, "selector", "string", "o"),
    ),
}

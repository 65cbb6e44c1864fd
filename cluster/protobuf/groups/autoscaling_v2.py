"""Protobuf field numbers of k8s.io.api.autoscaling.v2:
`autoscaling/v2/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.autoscaling.v2"
GROUP_VERSION = "autoscaling/v2"
KINDS = ("HorizontalPodAutoscaler",)

MESSAGES = {
    "ContainerResourceMetricSource": (
        (1, "name", "string", ""),
        (2, "target", "MetricTarget", ""),
        (3, "container", "string", ""),
    ),
    "ContainerResourceMetricStatus": (
        (1, "name", "string", ""),
        (2, "current", "MetricValueStatus", ""),
        (3, "container", "string", ""),
    ),
    "CrossVersionObjectReference": (
        (1, "kind", "string", ""),
        (2, "name", "string", ""),
        (3, "apiVersion", "string", "o"),
    ),
    "ExternalMetricSource": (
        (1, "metric", "MetricIdentifier", ""),
        (2, "target", "MetricTarget", ""),
    ),
    "ExternalMetricStatus": (
        (1, "metric", "MetricIdentifier", ""),
        (2, "current", "MetricValueStatus", ""),
    ),
    "HPAScalingPolicy": (
        (1, "type", "string", ""),
        (2, "value", "int32", ""),
        (3, "periodSeconds", "int32", ""),
    ),
    "HPAScalingRules": (
        (3, "stabilizationWindowSeconds", "int32", "*o"),
        (1, "selectPolicy", "string", "*o"),
        (2, "policies", "HPAScalingPolicy", "ro"),
        (4, "tolerance", "k8s.io.apimachinery.pkg.api.resource.Quantity", "*o"),
    ),
    "HorizontalPodAutoscaler": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "HorizontalPodAutoscalerSpec", "o"),
        (3, "status", "HorizontalPodAutoscalerStatus", "o"),
    ),
    "HorizontalPodAutoscalerBehavior": (
        (1, "scaleUp", "HPAScalingRules", "*o"),
        (2, "scaleDown", "HPAScalingRules", "*o"),
    ),
    "HorizontalPodAutoscalerCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "reason", "string", "o"),
        (5, "message", "string", "o"),
    ),
    "HorizontalPodAutoscalerSpec": (
        (1, "scaleTargetRef", "CrossVersionObjectReference", ""),
        (2, "minReplicas", "int32", "*o"),
        (3, "maxReplicas", "int32", ""),
        (4, "metrics", "MetricSpec", "ro"),
        (5, "behavior", "HorizontalPodAutoscalerBehavior", "*o"),
    ),
    "HorizontalPodAutoscalerStatus": (
        (1, "observedGeneration", "int64", "*o"),
        (2, "lastScaleTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
        (3, "currentReplicas", "int32", "o"),
        (4, "desiredReplicas", "int32", ""),
        (5, "currentMetrics", "MetricStatus", "r"),
        (6, "conditions", "HorizontalPodAutoscalerCondition", "ro"),
    ),
    "MetricIdentifier": (
        (1, "name", "string", ""),
        (2, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*o"),
    ),
    "MetricSpec": (
        (1, "type", "string", ""),
        (2, "object", "ObjectMetricSource", "*o"),
        (3, "pods", "PodsMetricSource", "*o"),
        (4, "resource", "ResourceMetricSource", "*o"),
        (7, "containerResource", "ContainerResourceMetricSource", "*o"),
        (5, "external", "ExternalMetricSource", "*o"),
    ),
    "MetricStatus": (
        (1, "type", "string", ""),
        (2, "object", "ObjectMetricStatus", "*o"),
        (3, "pods", "PodsMetricStatus", "*o"),
        (4, "resource", "ResourceMetricStatus", "*o"),
        (7, "containerResource", "ContainerResourceMetricStatus", "*o"),
        (5, "external", "ExternalMetricStatus", "*o"),
    ),
    "MetricTarget": (
        (1, "type", "string", ""),
        (2, "value", "k8s.io.apimachinery.pkg.api.resource.Quantity", "*o"),
        (3, "averageValue", "k8s.io.apimachinery.pkg.api.resource.Quantity", "*o"),
        (4, "averageUtilization", "int32", "*o"),
    ),
    "MetricValueStatus": (
        (1, "value", "k8s.io.apimachinery.pkg.api.resource.Quantity", "*o"),
        (2, "averageValue", "k8s.io.apimachinery.pkg.api.resource.Quantity", "*o"),
        (3, "averageUtilization", "int32", "*o"),
    ),
    "ObjectMetricSource": (
        (1, "describedObject", "CrossVersionObjectReference", ""),
        (2, "target", "MetricTarget", ""),
        (3, "metric", "MetricIdentifier", ""),
    ),
    "ObjectMetricStatus": (
        (1, "metric", "MetricIdentifier", ""),
        (2, "current", "MetricValueStatus", ""),
        (3, "describedObject", "CrossVersionObjectReference", ""),
    ),
    "PodsMetricSource": (
        (1, "metric", "MetricIdentifier", ""),
        (2, "target", "MetricTarget", ""),
    ),
    "PodsMetricStatus": (
        (1, "metric", "MetricIdentifier", ""),
        (2, "current", "MetricValueStatus", ""),
    ),
    "ResourceMetricSource": (
        (1, "name", "string", ""),
        (2, "target", "MetricTarget", ""),
    ),
    "ResourceMetricStatus": (
        (1, "name", "string", ""),
        (2, "current", "MetricValueStatus", ""),
    ),
}

"""Protobuf field numbers of k8s.io.api.apps.v1:
`apps/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.apps.v1"
GROUP_VERSION = "apps/v1"
KINDS = ("ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet")

MESSAGES = {
    "ControllerRevision": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "data", "k8s.io.apimachinery.pkg.runtime.RawExtension", "o"),
        (3, "revision", "int64", ""),
    ),
    "DaemonSet": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "DaemonSetSpec", "o"),
        (3, "status", "DaemonSetStatus", "o"),
    ),
    "DaemonSetCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "reason", "string", "o"),
        (5, "message", "string", "o"),
    ),
    "DaemonSetSpec": (
        (1, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*"),
        (2, "template", "k8s.io.api.core.v1.PodTemplateSpec", ""),
        (3, "updateStrategy", "DaemonSetUpdateStrategy", "o"),
        (4, "minReadySeconds", "int32", "o"),
        (6, "revisionHistoryLimit", "int32", "*o"),
    ),
    "DaemonSetStatus": (
        (1, "currentNumberScheduled", "int32", ""),
        (2, "numberMisscheduled", "int32", ""),
        (3, "desiredNumberScheduled", "int32", ""),
        (4, "numberReady", "int32", ""),
        (5, "observedGeneration", "int64", "o"),
        (6, "updatedNumberScheduled", "int32", "o"),
        (7, "numberAvailable", "int32", "o"),
        (8, "numberUnavailable", "int32", "o"),
        (9, "collisionCount", "int32", "*o"),
        (10, "conditions", "DaemonSetCondition", "ro"),
    ),
    "DaemonSetUpdateStrategy": (
        (1, "type", "string", "o"),
        (2, "rollingUpdate", "RollingUpdateDaemonSet", "*o"),
    ),
    "Deployment": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "DeploymentSpec", "o"),
        (3, "status", "DeploymentStatus", "o"),
    ),
    "DeploymentCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (6, "lastUpdateTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (7, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "reason", "string", "o"),
        (5, "message", "string", "o"),
    ),
    "DeploymentSpec": (
        (1, "replicas", "int32", "*o"),
        (2, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*"),
        (3, "template", "k8s.io.api.core.v1.PodTemplateSpec", ""),
        (4, "strategy", "DeploymentStrategy", "o"),
        (5, "minReadySeconds", "int32", "o"),
        (6, "revisionHistoryLimit", "int32", "*o"),
        (7, "paused", "bool", "o"),
        (9, "progressDeadlineSeconds", "int32", "*o"),
    ),
    "DeploymentStatus": (
        (1, "observedGeneration", "int64", "o"),
        (2, "replicas", "int32", "o"),
        (3, "updatedReplicas", "int32", "o"),
        (7, "readyReplicas", "int32", "o"),
        (4, "availableReplicas", "int32", "o"),
        (5, "unavailableReplicas", "int32", "o"),
        (9, "terminatingReplicas", "int32", "*o"),
        (6, "conditions", "DeploymentCondition", "ro"),
        (8, "collisionCount", "int32", "*o"),
    ),
    "DeploymentStrategy": (
        (1, "type", "string", "o"),
        (2, "rollingUpdate", "RollingUpdateDeployment", "*o"),
    ),
    "ReplicaSet": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "ReplicaSetSpec", "o"),
        (3, "status", "ReplicaSetStatus", "o"),
    ),
    "ReplicaSetCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "reason", "string", "o"),
        (5, "message", "string", "o"),
    ),
    "ReplicaSetSpec": (
        (1, "replicas", "int32", "*o"),
        (4, "minReadySeconds", "int32", "o"),
        (2, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*"),
        (3, "template", "k8s.io.api.core.v1.PodTemplateSpec", "o"),
    ),
    "ReplicaSetStatus": (
        (1, "replicas", "int32", ""),
        (2, "fullyLabeledReplicas", "int32", "o"),
        (4, "readyReplicas", "int32", "o"),
        (5, "availableReplicas", "int32", "o"),
        (7, "terminatingReplicas", "int32", "*o"),
        (3, "observedGeneration", "int64", "o"),
        (6, "conditions", "ReplicaSetCondition", "ro"),
    ),
    "RollingUpdateDaemonSet": (
        (1, "maxUnavailable", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
        (2, "maxSurge", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
    ),
    "RollingUpdateDeployment": (
        (1, "maxUnavailable", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
        (2, "maxSurge", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
    ),
    "RollingUpdateStatefulSetStrategy": (
        (1, "partition", "int32", "*o"),
        (2, "maxUnavailable", "k8s.io.apimachinery.pkg.util.intstr.IntOrString", "*o"),
    ),
    "StatefulSet": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "StatefulSetSpec", "o"),
        (3, "status", "StatefulSetStatus", "o"),
    ),
    "StatefulSetCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "reason", "string", "o"),
        (5, "message", "string", "o"),
    ),
    "StatefulSetOrdinals": ((1, "start", "int32", ""),),
    "StatefulSetPersistentVolumeClaimRetentionPolicy": (
        (1, "whenDeleted", "string", "o"),
        (2, "whenScaled", "string", "o"),
    ),
    "StatefulSetSpec": (
        (1, "replicas", "int32", "*o"),
        (2, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*"),
        (3, "template", "k8s.io.api.core.v1.PodTemplateSpec", ""),
        (4, "volumeClaimTemplates", "k8s.io.api.core.v1.PersistentVolumeClaim", "ro"),
        (5, "serviceName", "string", ""),
        (6, "podManagementPolicy", "string", "o"),
        (7, "updateStrategy", "StatefulSetUpdateStrategy", "o"),
        (8, "revisionHistoryLimit", "int32", "*o"),
        (9, "minReadySeconds", "int32", "o"),
        (10, "persistentVolumeClaimRetentionPolicy", "StatefulSetPersistentVolumeClaimRetentionPolicy", "*o"),
        (11, "ordinals", "StatefulSetOrdinals", "*o"),
    ),
    "StatefulSetStatus": (
        (1, "observedGeneration", "int64", "o"),
        (2, "replicas", "int32", ""),
        (3, "readyReplicas", "int32", "o"),
        (4, "currentReplicas", "int32", "o"),
        (5, "updatedReplicas", "int32", "o"),
        (6, "currentRevision", "string", "o"),
        (7, "updateRevision", "string", "o"),
        (9, "collisionCount", "int32", "*o"),
        (10, "conditions", "StatefulSetCondition", "ro"),
        (11, "availableReplicas", "int32", ""),
    ),
    "StatefulSetUpdateStrategy": (
        (1, "type", "string", "o"),
        (2, "rollingUpdate", "RollingUpdateStatefulSetStrategy", "*o"),
    ),
}

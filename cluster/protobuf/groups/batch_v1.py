"""Protobuf field numbers of k8s.io.api.batch.v1:
`batch/v1/generated.proto` in k8s.io/api v0.33.

Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is
(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;
flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,
"i" inlined into the parent's JSON.
"""

PACKAGE = "k8s.io.api.batch.v1"
GROUP_VERSION = "batch/v1"
KINDS = ("CronJob", "Job")

MESSAGES = {
    "CronJob": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "CronJobSpec", "o"),
        (3, "status", "CronJobStatus", "o"),
    ),
    "CronJobSpec": (
        (1, "schedule", "string", ""),
        (8, "timeZone", "string", "*o"),
        (2, "startingDeadlineSeconds", "int64", "*o"),
        (3, "concurrencyPolicy", "string", "o"),
        (4, "suspend", "bool", "*o"),
        (5, "jobTemplate", "JobTemplateSpec", ""),
        (6, "successfulJobsHistoryLimit", "int32", "*o"),
        (7, "failedJobsHistoryLimit", "int32", "*o"),
    ),
    "CronJobStatus": (
        (1, "active", "k8s.io.api.core.v1.ObjectReference", "ro"),
        (4, "lastScheduleTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
        (5, "lastSuccessfulTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
    ),
    "Job": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "JobSpec", "o"),
        (3, "status", "JobStatus", "o"),
    ),
    "JobCondition": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
        (3, "lastProbeTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (4, "lastTransitionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "o"),
        (5, "reason", "string", "o"),
        (6, "message", "string", "o"),
    ),
    "JobSpec": (
        (1, "parallelism", "int32", "*o"),
        (2, "completions", "int32", "*o"),
        (3, "activeDeadlineSeconds", "int64", "*o"),
        (11, "podFailurePolicy", "PodFailurePolicy", "*o"),
        (16, "successPolicy", "SuccessPolicy", "*o"),
        (7, "backoffLimit", "int32", "*o"),
        (12, "backoffLimitPerIndex", "int32", "*o"),
        (13, "maxFailedIndexes", "int32", "*o"),
        (4, "selector", "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector", "*o"),
        (5, "manualSelector", "bool", "*o"),
        (6, "template", "k8s.io.api.core.v1.PodTemplateSpec", ""),
        (8, "ttlSecondsAfterFinished", "int32", "*o"),
        (9, "completionMode", "string", "*o"),
        (10, "suspend", "bool", "*o"),
        (14, "podReplacementPolicy", "string", "*o"),
        (15, "managedBy", "string", "*o"),
    ),
    "JobStatus": (
        (1, "conditions", "JobCondition", "ro"),
        (2, "startTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
        (3, "completionTime", "k8s.io.apimachinery.pkg.apis.meta.v1.Time", "*o"),
        (4, "active", "int32", "o"),
        (5, "succeeded", "int32", "o"),
        (6, "failed", "int32", "o"),
        (11, "terminating", "int32", "*o"),
        (7, "completedIndexes", "string", "o"),
        (10, "failedIndexes", "string", "*o"),
        (8, "uncountedTerminatedPods", "UncountedTerminatedPods", "*o"),
        (9, "ready", "int32", "*o"),
    ),
    "JobTemplateSpec": (
        (1, "metadata", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "o"),
        (2, "spec", "JobSpec", "o"),
    ),
    "PodFailurePolicy": ((1, "rules", "PodFailurePolicyRule", "r"),),
    "PodFailurePolicyOnExitCodesRequirement": (
        (1, "containerName", "string", "*o"),
        (2, "operator", "string", ""),
        (3, "values", "int32", "r"),
    ),
    "PodFailurePolicyOnPodConditionsPattern": (
        (1, "type", "string", ""),
        (2, "status", "string", ""),
    ),
    "PodFailurePolicyRule": (
        (1, "action", "string", ""),
        (2, "onExitCodes", "PodFailurePolicyOnExitCodesRequirement", "*o"),
        (3, "onPodConditions", "PodFailurePolicyOnPodConditionsPattern", "ro"),
    ),
    "SuccessPolicy": ((1, "rules", "SuccessPolicyRule", "r"),),
    "SuccessPolicyRule": (
        (1, "succeededIndexes", "string", "*o"),
        (2, "succeededCount", "int32", "*o"),
    ),
    "UncountedTerminatedPods": (
        (1, "succeeded", "string", "ro"),
        (2, "failed", "string", "ro"),
    ),
}

"""The object types of the API, field by field, as Kubernetes v1.33 defines them.

One compact table feeds both the OpenAPI v3 documents and strict decoding. Each type is a line of
`field` (a string) or `field:type` entries, where type is: int, bool, obj (free-form: we do not
check inside), Q (a quantity: int-or-string), IntOrString, Time, another type's name, [T] (a list
of T) or {T} (a map of string to T). Types whose name ends in "*" keep unknown fields: they are the
rarely written corners (volume sources, status details) where a missing entry here must not turn a
valid manifest into an error.
"""

from __future__ import annotations

_TYPE_NAMES = {"int": "integer", "bool": "boolean", "obj": "object", "Q": "Quantity", "": "string"}

_META = (
    "name generateName namespace selfLink uid resourceVersion generation:int creationTimestamp:Time "
    "deletionTimestamp:Time deletionGracePeriodSeconds:int labels:{string} annotations:{string} "
    "ownerReferences:[OwnerReference] finalizers:[string] managedFields:[obj]"
)
_CONTAINER = (
    "name image command:[string] args:[string] workingDir ports:[ContainerPort] envFrom:[obj] "
    "env:[EnvVar] resources:ResourceRequirements resizePolicy:[obj] restartPolicy "
    "volumeMounts:[VolumeMount] volumeDevices:[obj] livenessProbe:Probe readinessProbe:Probe "
    "startupProbe:Probe lifecycle:obj terminationMessagePath terminationMessagePolicy "
    "imagePullPolicy securityContext:SecurityContext stdin:bool stdinOnce:bool tty:bool"
)
_POD_SPEC = (
    "volumes:[Volume] initContainers:[Container] containers:[Container] ephemeralContainers:[obj] "
    "restartPolicy terminationGracePeriodSeconds:int activeDeadlineSeconds:int dnsPolicy "
    "nodeSelector:{string} serviceAccountName serviceAccount automountServiceAccountToken:bool "
    "nodeName hostNetwork:bool hostPID:bool hostIPC:bool shareProcessNamespace:bool "
    "securityContext:PodSecurityContext imagePullSecrets:[LocalObjectReference] hostname subdomain "
    "affinity:Affinity schedulerName tolerations:[Toleration] hostAliases:[obj] priorityClassName "
    "priority:int dnsConfig:obj readinessGates:[obj] runtimeClassName enableServiceLinks:bool "
    "preemptionPolicy overhead:{Q} topologySpreadConstraints:[TopologySpreadConstraint] "
    "setHostnameAsFQDN:bool os:obj hostUsers:bool schedulingGates:[obj] resourceClaims:[obj] "
    "resources:ResourceRequirements"
)
_SECURITY = (
    "seLinuxOptions:obj windowsOptions:obj seccompProfile:obj appArmorProfile:obj runAsUser:int "
    "runAsGroup:int runAsNonRoot:bool "
)
_TOP = "apiVersion kind metadata:ObjectMeta "
_SCHEDULING = "requiredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution"
_REPLICAS = "replicas:int fullyLabeledReplicas:int readyReplicas:int availableReplicas:int "

_LINES = {
    "ObjectMeta": _META,
    "OwnerReference": "apiVersion kind name uid controller:bool blockOwnerDeletion:bool",
    "LabelSelector": "matchLabels:{string} matchExpressions:[LabelSelectorRequirement]",
    "LabelSelectorRequirement": "key operator values:[string]",
    "Pod": _TOP + "spec:PodSpec status:PodStatus",
    "PodSpec": _POD_SPEC,
    "PodTemplateSpec": "metadata:ObjectMeta spec:PodSpec",
    "Container": _CONTAINER,
    "ContainerPort": "name hostPort:int containerPort:int protocol hostIP",
    "EnvVar": "name value valueFrom:obj",
    "ResourceRequirements": "limits:{Q} requests:{Q} claims:[obj]",
    "VolumeMount": "name readOnly:bool recursiveReadOnly mountPath subPath mountPropagation subPathExpr",
    "Volume*": (
        "name hostPath:obj emptyDir:obj configMap:obj secret:obj persistentVolumeClaim:obj "
        "downwardAPI:obj projected:obj nfs:obj ephemeral:obj image:obj csi:obj"
    ),
    "Probe": (
        "exec:obj httpGet:HTTPGetAction tcpSocket:obj grpc:obj initialDelaySeconds:int "
        "timeoutSeconds:int periodSeconds:int successThreshold:int failureThreshold:int "
        "terminationGracePeriodSeconds:int"
    ),
    "HTTPGetAction": "path port:IntOrString host scheme httpHeaders:[obj]",
    "Affinity": "nodeAffinity:NodeAffinity podAffinity:PodAffinity podAntiAffinity:PodAffinity",
    "NodeAffinity": _SCHEDULING.replace(" ", ":NodeSelector ", 1) + ":[PreferredSchedulingTerm]",
    "NodeSelector": "nodeSelectorTerms:[NodeSelectorTerm]",
    "NodeSelectorTerm": "matchExpressions:[NodeSelectorRequirement] matchFields:[NodeSelectorRequirement]",
    "NodeSelectorRequirement": "key operator values:[string]",
    "PreferredSchedulingTerm": "weight:int preference:NodeSelectorTerm",
    "PodAffinity": _SCHEDULING.replace(" ", ":[PodAffinityTerm] ", 1) + ":[WeightedPodAffinityTerm]",
    "PodAffinityTerm": (
        "labelSelector:LabelSelector namespaceSelector:LabelSelector namespaces:[string] topologyKey "
        "matchLabelKeys:[string] mismatchLabelKeys:[string]"
    ),
    "WeightedPodAffinityTerm": "weight:int podAffinityTerm:PodAffinityTerm",
    "Toleration": "key operator value effect tolerationSeconds:int",
    "TopologySpreadConstraint": (
        "maxSkew:int topologyKey whenUnsatisfiable labelSelector:LabelSelector minDomains:int "
        "nodeAffinityPolicy nodeTaintsPolicy matchLabelKeys:[string]"
    ),
    "PodSecurityContext": _SECURITY
    + (
        "supplementalGroups:[int] supplementalGroupsPolicy fsGroup:int sysctls:[obj] "
        "fsGroupChangePolicy seLinuxChangePolicy"
    ),
    "SecurityContext": _SECURITY
    + "capabilities:obj privileged:bool readOnlyRootFilesystem:bool allowPrivilegeEscalation:bool procMount",
    "LocalObjectReference": "name",
    "PodStatus*": (
        "observedGeneration:int phase conditions:[obj] message reason nominatedNodeName hostIP "
        "hostIPs:[obj] podIP podIPs:[obj] startTime:Time initContainerStatuses:[obj] "
        "containerStatuses:[obj] qosClass ephemeralContainerStatuses:[obj] resize "
        "resourceClaimStatuses:[obj]"
    ),
    "Node": _TOP + "spec:NodeSpec status:NodeStatus",
    "NodeSpec": (
        "podCIDR podCIDRs:[string] providerID unschedulable:bool taints:[Taint] configSource:obj externalID"
    ),
    "Taint": "key value effect timeAdded:Time",
    "NodeStatus*": (
        "capacity:{Q} allocatable:{Q} phase conditions:[obj] addresses:[obj] daemonEndpoints:obj "
        "nodeInfo:obj images:[obj] volumesInUse:[string] volumesAttached:[obj] config:obj "
        "runtimeHandlers:[obj] features:obj"
    ),
    "ReplicationController": _TOP + "spec:ReplicationControllerSpec status:ReplicationControllerStatus",
    "ReplicationControllerSpec": (
        "replicas:int minReadySeconds:int selector:{string} template:PodTemplateSpec"
    ),
    "ReplicationControllerStatus*": _REPLICAS + "observedGeneration:int conditions:[obj]",
    "ReplicaSet": _TOP + "spec:ReplicaSetSpec status:ReplicaSetStatus",
    "ReplicaSetSpec": "replicas:int minReadySeconds:int selector:LabelSelector template:PodTemplateSpec",
    "ReplicaSetStatus*": _REPLICAS + "terminatingReplicas:int observedGeneration:int conditions:[obj]",
    "Deployment": _TOP + "spec:DeploymentSpec status:DeploymentStatus",
    "DeploymentSpec": (
        "replicas:int selector:LabelSelector template:PodTemplateSpec strategy:DeploymentStrategy "
        "minReadySeconds:int revisionHistoryLimit:int paused:bool progressDeadlineSeconds:int"
    ),
    "DeploymentStrategy": "type rollingUpdate:RollingUpdateDeployment",
    "RollingUpdateDeployment": "maxUnavailable:IntOrString maxSurge:IntOrString",
    "DeploymentStatus*": (
        "observedGeneration:int replicas:int updatedReplicas:int readyReplicas:int "
        "availableReplicas:int unavailableReplicas:int terminatingReplicas:int conditions:[obj] "
        "collisionCount:int"
    ),
    "DaemonSet": _TOP + "spec:DaemonSetSpec status:DaemonSetStatus",
    "DaemonSetSpec": (
        "selector:LabelSelector template:PodTemplateSpec updateStrategy:DaemonSetUpdateStrategy "
        "minReadySeconds:int revisionHistoryLimit:int"
    ),
    "DaemonSetUpdateStrategy": "type rollingUpdate:RollingUpdateDaemonSet",
    "RollingUpdateDaemonSet": "maxUnavailable:IntOrString maxSurge:IntOrString",
    "DaemonSetStatus*": (
        "currentNumberScheduled:int numberMisscheduled:int desiredNumberScheduled:int numberReady:int "
        "observedGeneration:int updatedNumberScheduled:int numberAvailable:int numberUnavailable:int "
        "collisionCount:int conditions:[obj]"
    ),
    "ControllerRevision": _TOP + "data:obj revision:int",
    "StatefulSet": _TOP + "spec:StatefulSetSpec status:StatefulSetStatus",
    "StatefulSetSpec": (
        "replicas:int selector:LabelSelector template:PodTemplateSpec "
        "volumeClaimTemplates:[PersistentVolumeClaim] serviceName podManagementPolicy "
        "updateStrategy:StatefulSetUpdateStrategy revisionHistoryLimit:int minReadySeconds:int "
        "persistentVolumeClaimRetentionPolicy:StatefulSetPersistentVolumeClaimRetentionPolicy "
        "ordinals:StatefulSetOrdinals"
    ),
    "StatefulSetUpdateStrategy": "type rollingUpdate:RollingUpdateStatefulSetStrategy",
    "RollingUpdateStatefulSetStrategy": "partition:int maxUnavailable:IntOrString",
    "StatefulSetPersistentVolumeClaimRetentionPolicy": "whenDeleted whenScaled",
    "StatefulSetOrdinals": "start:int",
    "StatefulSetStatus*": (
        "observedGeneration:int replicas:int readyReplicas:int currentReplicas:int updatedReplicas:int "
        "currentRevision updateRevision collisionCount:int conditions:[obj] availableReplicas:int"
    ),
    # A StatefulSet's volumeClaimTemplates (core/v1 PersistentVolumeClaim).
    "PersistentVolumeClaim*": _TOP + "spec:obj status:obj",
    "Job": _TOP + "spec:JobSpec status:JobStatus",
    "JobSpec": (
        "parallelism:int completions:int activeDeadlineSeconds:int podFailurePolicy:obj "
        "successPolicy:obj backoffLimit:int backoffLimitPerIndex:int maxFailedIndexes:int "
        "selector:LabelSelector manualSelector:bool template:PodTemplateSpec "
        "ttlSecondsAfterFinished:int completionMode suspend:bool podReplacementPolicy managedBy"
    ),
    "JobStatus*": (
        "conditions:[obj] startTime:Time completionTime:Time active:int succeeded:int failed:int "
        "terminating:int completedIndexes failedIndexes uncountedTerminatedPods:obj ready:int"
    ),
    "CronJob": _TOP + "spec:CronJobSpec status:CronJobStatus",
    "CronJobSpec": (
        "schedule timeZone startingDeadlineSeconds:int concurrencyPolicy suspend:bool "
        "jobTemplate:JobTemplateSpec successfulJobsHistoryLimit:int failedJobsHistoryLimit:int"
    ),
    "JobTemplateSpec": "metadata:ObjectMeta spec:JobSpec",
    "CronJobStatus*": "active:[obj] lastScheduleTime:Time lastSuccessfulTime:Time",
    "PriorityClass": _TOP + "value:int globalDefault:bool description preemptionPolicy",
}


def _type(spec: str) -> str:
    if spec and spec[0] in "[{":
        return spec[0] + _type(spec[1:-1]) + spec[-1]
    return _TYPE_NAMES.get(spec, spec)


def _parse(line: str) -> dict[str, str]:
    out = {}
    for entry in line.split():
        name, _, spec = entry.partition(":")
        out[name] = _type(spec)
    return out


# Type name (without "*") -> {field: type}, and the names that keep unknown fields.
TYPES: dict[str, dict[str, str]] = {k.rstrip("*"): _parse(v) for k, v in _LINES.items()}
OPEN_TYPES = frozenset(k.rstrip("*") for k in _LINES if k.endswith("*"))

# The Go package each type lives in, for OpenAPI's fully qualified schema names.
META_TYPES = {"ObjectMeta", "OwnerReference", "LabelSelector", "LabelSelectorRequirement"}
APPS_TYPES = {
    name
    for name in TYPES
    if name.startswith(
        ("ReplicaSet", "Deployment", "DaemonSet", "RollingUpdate", "ControllerRevision", "StatefulSet")
    )
}
BATCH_TYPES = {name for name in TYPES if name.startswith(("Job", "CronJob"))}

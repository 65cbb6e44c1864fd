"""A pod's spec as every kind that holds one defaults and validates it: Pods, and the templates of
ReplicationControllers, ReplicaSets, Deployments, DaemonSets and Jobs (upstream's
SetDefaults_PodSpec and ValidatePodSpec in `pkg/apis/core`)."""

from __future__ import annotations

from cluster.apiserver.fielderrors import FieldErrors, label_value_errors
from cluster.apiserver.validation import container as validate_container
from cluster.apiserver.validation import resource_list
from k8s.quantity import QuantityError, parse_quantity

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


# -- defaults -------------------------------------------------------------------------------------
def image_pull_policy(image: str) -> str:
    """Always for :latest or no tag (and no digest), else IfNotPresent."""
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.split(":", 1)[1] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


PROBE_DEFAULTS = {"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}


def _probe_defaults(probe: object) -> None:
    """SetDefaults_Probe (a zero is unset) and SetDefaults_HTTPGetAction."""
    if not isinstance(probe, dict):
        return
    for field, value in PROBE_DEFAULTS.items():
        if not probe.get(field):
            probe[field] = value
    action = probe.get("httpGet")
    if isinstance(action, dict):
        action.setdefault("path", "/")
        action.setdefault("scheme", "HTTP")


def _container_defaults(container: dict) -> None:
    if not isinstance(container, dict):
        return
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe_defaults(container.get(kind))
    image = container.get("image")
    if isinstance(image, str) and image and "imagePullPolicy" not in container:
        container["imagePullPolicy"] = image_pull_policy(image)
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    resources = container.setdefault("resources", {})
    if isinstance(resources, dict) and isinstance(resources.get("limits"), dict):
        # A container that sets only limits requests exactly its limits (SetDefaults_Pod).
        requests = resources.setdefault("requests", {})
        if isinstance(requests, dict):
            for name, amount in resources["limits"].items():
                requests.setdefault(name, amount)
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def pod_spec_defaults(spec: dict) -> None:
    """SetDefaults_PodSpec and the container defaults (also used for templates)."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    if spec.get("serviceAccountName") or spec.get("serviceAccount"):
        spec.setdefault("serviceAccountName", spec.get("serviceAccount"))
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            _container_defaults(container)


def template_defaults(spec: dict) -> None:
    """The pod template of a workload's spec, defaulted as a pod's spec is."""
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.setdefault("spec", {}), dict):
        template.setdefault("metadata", {})
        pod_spec_defaults(template["spec"])


def ensure_template(spec: dict) -> dict:
    """A DaemonSet's or Job's template, added when absent, its pod spec defaulted."""
    template = spec.setdefault("template", {})
    if isinstance(template, dict):
        template.setdefault("metadata", {})
        if isinstance(template.setdefault("spec", {}), dict):
            pod_spec_defaults(template["spec"])
    return template if isinstance(template, dict) else {}


def qos_class(spec: dict) -> str:
    """The pod's QoS class, from its containers' requests and limits (v1/qos.GetPodQOS)."""
    guaranteed, any_set = True, False
    for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        resources = container.get("resources") or {} if isinstance(container, dict) else {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        if requests or limits:
            any_set = True
        for name in ("cpu", "memory"):
            if name not in limits or not _same_quantity(requests.get(name, limits[name]), limits[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _same_quantity(a: object, b: object) -> bool:
    try:
        return parse_quantity(a) == parse_quantity(b)  # type: ignore[arg-type]
    except (QuantityError, TypeError):
        return False


# -- validation -----------------------------------------------------------------------------------
def _tolerations(errors: FieldErrors, path: str, tolerations: object) -> None:
    if tolerations is None:
        return
    if not isinstance(tolerations, list):
        errors.type_error(path, tolerations, "a list")
        return
    for i, t in enumerate(tolerations):
        where = f"{path}[{i}]"
        if not isinstance(t, dict):
            errors.type_error(where, t, "an object")
            continue
        if t.get("key"):
            errors.label_key(f"{where}.key", t["key"])
        operator = t.get("operator") or "Equal"
        if operator == "Equal" and isinstance(t.get("value"), str) and label_value_errors(t["value"]):
            # validateTolerations reports a bad value on the operator's path, as upstream does.
            errors.invalid(f"{where}.operator", t["value"], ";".join(label_value_errors(t["value"])))
        if operator not in ("Equal", "Exists"):
            errors.not_supported(f"{where}.operator", operator, ("Equal", "Exists"))
        elif operator == "Exists" and t.get("value"):
            errors.invalid(f"{where}.operator", t["value"], "value must be empty when `operator` is 'Exists'")
        elif not t.get("key") and operator == "Equal":
            errors.invalid(f"{where}.operator", operator, "operator must be Exists when `key` is empty")
        if t.get("effect") and t["effect"] not in TAINT_EFFECTS:
            errors.not_supported(f"{where}.effect", t["effect"], TAINT_EFFECTS)


def _volumes(errors: FieldErrors, path: str, volumes: object) -> None:
    """Each volume has a name (a null element is Go's zero Volume: no name, no type)."""
    if not isinstance(volumes, list):
        return
    for i, volume in enumerate(volumes):
        if not isinstance(volume, dict):
            errors.required(f"{path}[{i}].name")
            errors.required(f"{path}[{i}]", "must specify a volume type")
        elif not volume.get("name"):
            errors.required(f"{path}[{i}].name")


def validate_pod_spec(errors: FieldErrors, path: str, spec: object) -> None:
    """ValidatePodSpec: containers, policies, node name and selector, tolerations, overhead."""
    if not isinstance(spec, dict):
        errors.type_error(path, spec, "an object")
        return
    _volumes(errors, f"{path}.volumes", spec.get("volumes"))
    containers = spec.get("containers")
    if not containers:
        errors.required(f"{path}.containers")
    seen: set = set()
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            errors.type_error(f"{path}.{key}", items, "a list")
            continue
        for i, c in enumerate(items):
            validate_container(errors, f"{path}.{key}[{i}]", c, seen)
    if spec.get("restartPolicy") not in (None, *RESTART_POLICIES):
        errors.not_supported(f"{path}.restartPolicy", spec["restartPolicy"], RESTART_POLICIES)
    if spec.get("dnsPolicy") not in (None, *DNS_POLICIES):
        errors.not_supported(f"{path}.dnsPolicy", spec["dnsPolicy"], DNS_POLICIES)
    if spec.get("nodeName"):
        if isinstance(spec["nodeName"], str):
            errors.dns_subdomain(f"{path}.nodeName", spec["nodeName"])
        else:
            errors.invalid(f"{path}.nodeName", spec["nodeName"], "must be a string")
    errors.labels(f"{path}.nodeSelector", spec.get("nodeSelector"))
    _tolerations(errors, f"{path}.tolerations", spec.get("tolerations"))
    _scheduling_gates(errors, f"{path}.schedulingGates", spec.get("schedulingGates"))
    resource_list(errors, f"{path}.overhead", spec.get("overhead"))
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
        errors.invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be an integer")


def _scheduling_gates(errors: FieldErrors, path: str, gates: object) -> None:
    """validateSchedulingGates: qualified names, none twice."""
    if gates is None:
        return
    if not isinstance(gates, list):
        errors.type_error(path, gates, "a list")
        return
    seen: set[str] = set()
    for i, gate in enumerate(gates):
        if not isinstance(gate, dict):
            errors.type_error(f"{path}[{i}]", gate, "an object")
            continue
        name = gate.get("name")
        errors.label_key(f"{path}[{i}]", name)
        if isinstance(name, str):
            if name in seen:
                errors.duplicate(f"{path}[{i}]", name)
            seen.add(name)


def validate_restart_policy(errors: FieldErrors, spec: dict, allowed: tuple[str, ...]) -> None:
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    if isinstance(spec.get("template"), dict) and policy not in allowed:
        errors.not_supported("spec.template.spec.restartPolicy", policy, allowed)


def template_labels(template: dict) -> dict:
    labels = (template.get("metadata") or {}).get("labels") or {}
    return labels if isinstance(labels, dict) else {}

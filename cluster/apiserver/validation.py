"""Validation of objects on create and update, as the real API server's ValidateX functions.

Each validator returns the causes; the service turns them into one 422 Invalid Status.
"""

from __future__ import annotations

import re

from cluster.apiserver.fielderrors import FieldErrors
from k8s.quantity import QuantityError, parse_quantity

INT32_MAX = 2**31 - 1
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # bytes, keys and values of one object together
_QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def _is_list(errors: FieldErrors, path: str, value: object) -> bool:
    if isinstance(value, list):
        return True
    errors.type_error(path, value, "a list")
    return False


def _is_map(errors: FieldErrors, path: str, value: object) -> bool:
    if isinstance(value, dict):
        return True
    errors.type_error(path, value, "an object")
    return False


def path_segment_errors(name: str) -> list[str]:
    """path.IsValidPathSegmentName: the names RBAC's kinds take (`system:basic-user`)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def metadata(errors: FieldErrors, meta: object, namespaced: bool, name_check: str = "subdomain") -> None:
    if not _is_map(errors, "metadata", meta):
        return
    name = meta.get("name")
    if not name:
        errors.required("metadata.name", "name or generateName is required")
    elif not isinstance(name, str):
        errors.invalid("metadata.name", name, "must be a string")
    elif name_check == "label":
        errors.dns_label("metadata.name", name)
    elif name_check == "path":
        for message in path_segment_errors(name):
            errors.invalid("metadata.name", name, message)
    else:
        errors.dns_subdomain("metadata.name", name)
    namespace = meta.get("namespace")
    if namespaced and isinstance(namespace, str):
        errors.dns_label("metadata.namespace", namespace)
    elif not namespaced and namespace:
        errors.forbidden("metadata.namespace", "not allowed on this type")
    errors.labels("metadata.labels", meta.get("labels"))
    annotations = meta.get("annotations")
    if annotations is not None and _is_map(errors, "metadata.annotations", annotations):
        annotations_(errors, annotations)
    _owner_references(errors, meta.get("ownerReferences"))
    _finalizers(errors, meta.get("finalizers"))


def _owner_references(errors: FieldErrors, refs: object) -> None:
    """ValidateOwnerReferences' required fields; a null element is Go's zero OwnerReference."""
    if not isinstance(refs, list):
        return  # absent, or a wrong type the decoder's check answers
    for ref in refs:
        ref = ref if isinstance(ref, dict) else {}
        for field, what in (("apiVersion", "version"), ("kind", "kind"), ("name", "name"), ("uid", "uid")):
            if not ref.get(field):
                errors.invalid(f"metadata.ownerReferences.{field}", "", f"{what} must not be empty")


def _finalizers(errors: FieldErrors, finalizers: object) -> None:
    """A finalizer is a qualified name; a null element is Go's zero string, ""."""
    if not isinstance(finalizers, list):
        return
    for finalizer in finalizers:
        if not isinstance(finalizer, str) or not finalizer:
            errors.invalid("metadata.finalizers", "", "name part must be non-empty")


def annotations_(errors: FieldErrors, annotations: dict) -> None:
    """ValidateAnnotations: keys are qualified names (case ignored); keys and values together
    take at most TotalAnnotationSizeLimitB bytes."""
    size = 0
    for key, value in annotations.items():
        errors.label_key("metadata.annotations", key, lowercase=True)
        if not isinstance(value, str):
            errors.invalid(f"metadata.annotations[{key}]", value, "must be a string")
            continue
        size += len(str(key).encode()) + len(value.encode())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        errors.too_long("metadata.annotations", TOTAL_ANNOTATION_SIZE_LIMIT)


def quantity(errors: FieldErrors, path: str, value: object) -> object | None:
    """The parsed quantity, or None after recording why it is invalid."""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        errors.invalid(path, value, _QUANTITY_MSG)
        return None
    try:
        parsed = parse_quantity(value)
    except QuantityError:
        errors.invalid(path, value, _QUANTITY_MSG)
        return None
    if parsed < 0:
        errors.invalid(path, value, "must be greater than or equal to 0")
        return None
    return parsed


def resource_list(errors: FieldErrors, path: str, resources: object) -> dict:
    parsed: dict = {}
    if resources is None or not _is_map(errors, path, resources):
        return parsed
    for name, value in resources.items():
        amount = quantity(errors, f"{path}[{name}]", value)
        if amount is not None:
            parsed[name] = amount
    return parsed


def _ports(errors: FieldErrors, path: str, ports: object) -> None:
    if ports is None or not _is_list(errors, path, ports):
        return
    for i, port in enumerate(ports):
        where = f"{path}[{i}]"
        if not _is_map(errors, where, port):
            continue
        number = port.get("containerPort")
        if number is None:
            errors.required(f"{where}.containerPort")
        elif not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 65535:
            errors.invalid(f"{where}.containerPort", number, "must be between 1 and 65535, inclusive")
        host = port.get("hostPort")
        if host not in (None, 0) and (not isinstance(host, int) or not 1 <= host <= 65535):
            errors.invalid(f"{where}.hostPort", host, "must be between 1 and 65535, inclusive")
        if port.get("protocol") not in (None, "TCP", "UDP", "SCTP"):
            errors.not_supported(f"{where}.protocol", port["protocol"], ("SCTP", "TCP", "UDP"))


_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_PORT_NAME_CHARS = re.compile(r"[-a-z0-9]+")


def _port_num_or_name(errors: FieldErrors, path: str, port: object) -> None:
    """validatePortNumOrName."""
    if isinstance(port, bool) or port is None:
        errors.required(path) if port is None else errors.invalid(path, port, "must be an int or a string")
    elif isinstance(port, int):
        if not 1 <= port <= 65535:
            errors.invalid(path, port, "must be between 1 and 65535, inclusive")
    elif isinstance(port, str):
        for problem in _port_name_problems(port):
            errors.invalid(path, port, problem)


def _port_name_problems(port: str) -> list[str]:
    """IsValidPortName's messages (an IANA_SVC_NAME)."""
    problems = []
    if len(port) > 15:
        problems.append("must be no more than 15 characters")
    if not _PORT_NAME_CHARS.fullmatch(port):
        problems.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not any("a" <= c <= "z" for c in port):
        problems.append("must contain at least one letter (a-z)")
    if "--" in port:
        problems.append("must not contain consecutive hyphens (--)")
    if port and (port[0] == "-" or port[-1] == "-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def _probe(errors: FieldErrors, path: str, probe: object, only_one_success: bool) -> None:
    """validateProbe and its handler (validateHandler), then `must be 1` for liveness/startup."""
    if probe is None or not _is_map(errors, path, probe):
        return
    handlers = [h for h in _PROBE_HANDLERS if probe.get(h) is not None]
    for extra in handlers[1:]:
        errors.forbidden(f"{path}.{extra}", "may not specify more than 1 handler type")
    if not handlers:
        errors.required(path, "must specify a handler type")
    action = probe.get(handlers[0]) if handlers else None
    if handlers and _is_map(errors, f"{path}.{handlers[0]}", action):
        where = f"{path}.{handlers[0]}"
        if handlers[0] == "exec" and not action.get("command"):
            errors.required(f"{where}.command")
        if handlers[0] in ("httpGet", "tcpSocket", "grpc"):
            _port_num_or_name(errors, f"{where}.port", action.get("port"))
        if handlers[0] == "httpGet" and action.get("scheme") not in (None, "HTTP", "HTTPS"):
            errors.not_supported(f"{where}.scheme", action["scheme"], ("HTTP", "HTTPS"))
    for field in (
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ):
        value = probe.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.invalid(f"{path}.{field}", value, "must be greater than or equal to 0")
    grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace <= 0:
        errors.invalid(f"{path}.terminationGracePeriodSeconds", grace, "must be greater than 0")
    success = probe.get("successThreshold")
    if only_one_success and isinstance(success, int) and success != 1:
        errors.invalid(f"{path}.successThreshold", success, "must be 1")


def probes(errors: FieldErrors, path: str, c: dict) -> None:
    _probe(errors, f"{path}.livenessProbe", c.get("livenessProbe"), True)
    _probe(errors, f"{path}.readinessProbe", c.get("readinessProbe"), False)
    _probe(errors, f"{path}.startupProbe", c.get("startupProbe"), True)


def container(errors: FieldErrors, path: str, c: object, seen: set) -> None:
    if not _is_map(errors, path, c):
        return
    name = c.get("name")
    if not name:
        errors.required(f"{path}.name")
    elif not isinstance(name, str):
        errors.invalid(f"{path}.name", name, "must be a string")
    else:
        errors.dns_label(f"{path}.name", name)
        if name in seen:
            errors.duplicate(f"{path}.name", name)
        seen.add(name)
    image = c.get("image")
    if not image:
        errors.required(f"{path}.image")
    elif not isinstance(image, str):
        errors.invalid(f"{path}.image", image, "must be a string")
    elif image != image.strip():
        errors.invalid(f"{path}.image", image, "must not have leading or trailing whitespace")
    policy = c.get("imagePullPolicy")
    if policy is not None and policy not in ("Always", "IfNotPresent", "Never"):
        errors.not_supported(f"{path}.imagePullPolicy", policy, ("Always", "IfNotPresent", "Never"))
    _ports(errors, f"{path}.ports", c.get("ports"))
    probes(errors, path, c)
    resources = c.get("resources")
    if resources is not None and _is_map(errors, f"{path}.resources", resources):
        limits = resource_list(errors, f"{path}.resources.limits", resources.get("limits"))
        requests = resource_list(errors, f"{path}.resources.requests", resources.get("requests"))
        for res, amount in requests.items():
            if res in limits and amount > limits[res]:
                errors.invalid(
                    f"{path}.resources.requests",
                    resources["requests"][res],
                    f"must be less than or equal to {res} limit of {resources['limits'][res]}",
                )

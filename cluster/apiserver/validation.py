"""Validation of objects on create and update, as the real API server's ValidateX functions.

Each validator returns the causes; the service turns them into one 422 Invalid Status.
"""

from __future__ import annotations

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

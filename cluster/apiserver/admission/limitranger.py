"""The LimitRanger admission plugin (plugin/pkg/admission/limitranger/admission.go, v1.33), for
pods: a new pod's containers get the namespace's LimitRange defaults (`default` as limits,
`defaultRequest` as requests, for what they leave out) with upstream's annotation
`kubernetes.io/limit-ranger: LimitRanger plugin set: cpu request for container nginx; ...`; then
min, max and maxLimitRequestRatio are enforced per Container and per Pod, refused in upstream's
words (`pods "x" is forbidden: maximum cpu usage per Container is 500m, but limit is 1`; several
at once as `[..., ...]`). Pod updates are left alone, as upstream leaves them (containers' resources
cannot change). A new PersistentVolumeClaim's `requests.storage` is held to the
PersistentVolumeClaim items' min and max (PersistentVolumeClaimValidateLimitFunc).
"""

from __future__ import annotations

from fractions import Fraction

from cluster.apiserver import rows
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import forbidden
from k8s.quantity import canonical, format_quantity, milli_value
from k8s.quota import pod_resources

ANNOTATION = "kubernetes.io/limit-ranger"
_RATIO = "max limit to request ratio"


def limit_ranges(cluster_id: int, namespace: str) -> list[dict]:
    found = [
        body
        for body in rows.kept_bodies(cluster_id, "LimitRange")
        if (body.get("metadata") or {}).get("namespace") == namespace
    ]
    return sorted(found, key=lambda body: body["metadata"]["name"])


def _items(limit_range: dict) -> list[dict]:
    return [item for item in ((limit_range.get("spec") or {}).get("limits") or []) if isinstance(item, dict)]


def _containers(pod: dict) -> list[tuple[dict, str]]:
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    found = []
    for field, prefix in (("containers", "container"), ("initContainers", "init container")):
        items = spec.get(field)
        if isinstance(items, list):
            found += [(c, prefix) for c in items if isinstance(c, dict)]
    return found


# -- defaults (mutating) --------------------------------------------------------------------------
def default_requirements(limit_range: dict) -> tuple[dict, dict]:
    """defaultContainerResourceRequirements: (requests, limits) from the Container items."""
    requests: dict = {}
    limits: dict = {}
    for item in _items(limit_range):
        if item.get("type") == "Container":
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    return requests, limits


def apply_defaults(pod: dict, requests: dict, limits: dict) -> None:
    """mergePodResourceRequirements: fill what each container leaves out, and say so."""
    notes = []
    for container, prefix in _containers(pod):
        resources = container.get("resources")
        if not isinstance(resources, dict):
            resources = container["resources"] = {}
        set_requests, set_limits = [], []
        for which, defaults, changed in (
            ("limits", limits, set_limits),
            ("requests", requests, set_requests),
        ):
            current = resources.get(which)
            if not isinstance(current, dict):
                current = {}
            for name, value in defaults.items():
                if name not in current:
                    current[name] = value
                    changed.append(name)
            if current:
                resources[which] = current
        name = container.get("name", "")
        if set_requests:
            notes.append(f"{', '.join(sorted(set_requests))} request for {prefix} {name}")
        if set_limits:
            notes.append(f"{', '.join(sorted(set_limits))} limit for {prefix} {name}")
    if notes:
        meta = pod.setdefault("metadata", {})
        annotations = meta.get("annotations")
        if not isinstance(annotations, dict):
            annotations = meta["annotations"] = {}
        annotations[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)


def mutate(cluster, kind: str, body: dict) -> None:
    if kind != "Pod":
        return
    namespace = (body.get("metadata") or {}).get("namespace") or ""
    for limit_range in limit_ranges(cluster.pk, namespace):
        apply_defaults(body, *default_requirements(limit_range))


# -- min, max, ratio (validating) -----------------------------------------------------------------
def _min(kind: str, name: str, enforced, requests: dict, limits: dict) -> str | None:
    shown = format_quantity(enforced)
    if name not in requests:
        return f"minimum {name} usage per {kind} is {shown}.  No request is specified"
    if milli_value(requests[name]) < milli_value(enforced):
        return f"minimum {name} usage per {kind} is {shown}, but request is {format_quantity(requests[name])}"
    if name in limits and milli_value(limits[name]) < milli_value(enforced):
        return f"minimum {name} usage per {kind} is {shown}, but limit is {format_quantity(limits[name])}"
    return None


def _max_request(kind: str, name: str, enforced, requests: dict, limits: dict) -> str | None:
    """maxRequestConstraint: a claim has requests only."""
    shown = format_quantity(enforced)
    if name not in requests:
        return f"maximum {name} usage per {kind} is {shown}.  No request is specified"
    if milli_value(requests[name]) > milli_value(enforced):
        return f"maximum {name} usage per {kind} is {shown}, but request is {format_quantity(requests[name])}"
    return None


def _max(kind: str, name: str, enforced, requests: dict, limits: dict) -> str | None:
    shown = format_quantity(enforced)
    if name not in limits:
        return f"maximum {name} usage per {kind} is {shown}.  No limit is specified"
    if milli_value(limits[name]) > milli_value(enforced):
        return f"maximum {name} usage per {kind} is {shown}, but limit is {format_quantity(limits[name])}"
    if name in requests and milli_value(requests[name]) > milli_value(enforced):
        return f"maximum {name} usage per {kind} is {shown}, but request is {format_quantity(requests[name])}"
    return None


def _ratio(kind: str, name: str, enforced, requests: dict, limits: dict) -> str | None:
    shown = format_quantity(enforced)
    request = milli_value(requests[name]) if name in requests else 0
    limit = milli_value(limits[name]) if name in limits else 0
    if not request:
        return f"{name} {_RATIO} per {kind} is {shown}, but no request is specified or request is 0"
    if not limit:
        return f"{name} {_RATIO} per {kind} is {shown}, but no limit is specified or limit is 0"
    observed = limit / request
    if observed * 1000 > milli_value(enforced):
        return f"{name} {_RATIO} per {kind} is {shown}, but provided ratio is {observed:f}"
    return None


def _check_item(item: dict, kind: str, requests: dict, limits: dict) -> list[str]:
    errors = []
    for field, constraint in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        values = item.get(field) or {}
        for name in sorted(values):
            error = constraint(kind, name, values[name], requests, limits)
            if error:
                errors.append(error)
    return errors


def _pod_totals(pod: dict, which: str) -> dict:
    amounts, binary = pod_resources(pod, which)
    return {name: canonical(Fraction(amount), binary.get(name, False)) for name, amount in amounts.items()}


def violations(limit_range: dict, pod: dict) -> list[str]:
    """PodValidateLimitFunc: each broken constraint's message, containers first."""
    errors = []
    for item in _items(limit_range):
        if item.get("type") == "Container":
            for container, _ in _containers(pod):
                resources = container.get("resources") or {}
                errors += _check_item(
                    item, "Container", resources.get("requests") or {}, resources.get("limits") or {}
                )
        elif item.get("type") == "Pod":
            errors += _check_item(item, "Pod", _pod_totals(pod, "requests"), _pod_totals(pod, "limits"))
    return errors


def claim_violations(limit_range: dict, claim: dict) -> list[str]:
    requests = ((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}
    errors = []
    for item in _items(limit_range):
        if item.get("type") != "PersistentVolumeClaim":
            continue
        for field, constraint in (("min", _min), ("max", _max_request)):
            values = item.get(field) or {}
            for name in sorted(values):
                error = constraint("PersistentVolumeClaim", name, values[name], requests, {})
                if error:
                    errors.append(error)
    return errors


def aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): duplicates dropped; several in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    if verb != "create" or kind not in ("Pod", "PersistentVolumeClaim"):
        return
    meta = body.get("metadata") or {}
    judge, plural = (violations, "pods") if kind == "Pod" else (claim_violations, "persistentvolumeclaims")
    for limit_range in limit_ranges(cluster.pk, meta.get("namespace") or ""):
        errors = judge(limit_range, body)
        if errors:
            name = meta.get("name") or meta.get("generateName") or "Unknown"
            raise forbidden(plural, name, aggregate(errors))


def install() -> None:
    chain.register_defaulted(mutate)
    chain.register(admit)

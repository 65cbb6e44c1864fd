"""Ephemeral containers (`kubectl debug POD --image=…`): the pods/ephemeralcontainers subresource.

An update through it changes `spec.ephemeralContainers` and nothing else (what else the body
says is ignored, as upstream's ephemeralContainersStrategy does); the validation is upstream's
validateEphemeralContainers and ValidatePodEphemeralContainersUpdate: each one a container
whose name no other container of the pod has, none of the fields an ephemeral container may not
set, a targetContainerName that names one of the pod's containers, and the ones already added
neither changed nor removed. An update of the pod itself cannot change them.
"""

from __future__ import annotations

import json

from cluster.apiserver.errors import Cause
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.store import clone
from cluster.apiserver.validation import container as validate_container
from cluster.kinds.core.podspec import _container_defaults as container_defaults

SUBRESOURCE = "ephemeralcontainers"
PATH = "spec.ephemeralContainers"
# Fields of a Container that an EphemeralContainer may not set (validateEphemeralContainers).
_FORBIDDEN = ("ports", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "resizePolicy")
_CANNOT = "cannot be set for an Ephemeral Container"


def merged(old: dict, new: dict) -> dict:
    """The pod to store: `old` with the new ephemeral containers (defaulted), nothing else."""
    result = clone(old)
    spec_in = new.get("spec") if isinstance(new.get("spec"), dict) else {}
    added = clone(spec_in.get("ephemeralContainers"))
    if isinstance(added, list):
        for item in added:
            container_defaults(item)
    spec = result.setdefault("spec", {})
    if added:
        spec["ephemeralContainers"] = added
    else:
        spec.pop("ephemeralContainers", None)
    return result


def _named(spec: dict, key: str) -> list[str]:
    return [c.get("name") for c in spec.get(key) or [] if isinstance(c, dict)]


def validate(pod: dict, old: dict) -> list[Cause]:
    errors = FieldErrors()
    spec = pod.get("spec") or {}
    items = spec.get("ephemeralContainers") or []
    if not isinstance(items, list):
        errors.type_error(PATH, items, "a list")
        return errors.causes
    others = [*_named(spec, "initContainers"), *_named(spec, "containers")]
    seen = set(others)
    for i, item in enumerate(items):
        where = f"{PATH}[{i}]"
        validate_container(errors, where, item, seen)
        if not isinstance(item, dict):
            continue
        for key in _FORBIDDEN:
            if item.get(key):
                errors.forbidden(f"{where}.{key}", _CANNOT)
        if (item.get("resources") or {}) not in ({}, {"limits": {}, "requests": {}}):
            errors.forbidden(f"{where}.resources", _CANNOT)
        if item.get("restartPolicy") is not None:
            errors.forbidden(f"{where}.restartPolicy", _CANNOT)
        target = item.get("targetContainerName")
        if target and target not in others:
            field = f"{where}.targetContainerName"
            errors.causes.append(Cause("FieldValueNotFound", field, f"Not found: {json.dumps(target)}"))
    new_by_name = {c.get("name"): c for c in items if isinstance(c, dict)}
    for before in (old.get("spec") or {}).get("ephemeralContainers") or []:
        now, name = new_by_name.get(before.get("name")), json.dumps(before.get("name"))
        if now is None:
            errors.forbidden(PATH, f"existing ephemeral containers {name} may not be removed\n")
        elif now != before:
            errors.forbidden(PATH, f"existing ephemeral containers {name} may not be changed\n")
    return errors.causes

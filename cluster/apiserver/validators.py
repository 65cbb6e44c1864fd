"""Validation on create and update: metadata (the name and its immutability) for every kind, then
the kind's own validate hook (ValidatePod, ValidateService, ... in its module under
`cluster/kinds/`)."""

from __future__ import annotations

from cluster.apiserver import finalizers
from cluster.apiserver.errors import Cause
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.validation import metadata


def metadata_only(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """The validate hook of a kind with no rules beyond metadata's (Event, Lease, Namespace)."""


def validate(info: KindInfo, obj: dict, old: dict | None = None) -> list[Cause]:
    """Every cause that makes `obj` invalid (empty when it is fine). `old` is set on update."""
    errors = FieldErrors()
    metadata(errors, obj.get("metadata"), info.namespaced, info.name_rule)
    if old is not None:
        meta, old_meta = obj.get("metadata") or {}, old.get("metadata") or {}
        if meta.get("name") != old_meta.get("name"):
            errors.invalid("metadata.name", meta.get("name"), "field is immutable")
        finalizers.check_no_new(errors, obj, old)
    if info.validate is not None:
        info.validate(errors, obj, old)
    return errors.causes

"""Defaulting on create: the metadata the server owns, then the kind's own defaults hook (each
kind's SetDefaults_* is in its module under `cluster/kinds/`).

Only fields the user left out are filled in; nothing the user wrote is changed.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime

from cluster.apiserver.kinds import kind_info
from k8s import clock

_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # utilrand's alphabet: no vowels, no look-alikes


_formatted: tuple[datetime | None, str] = (None, "")


def now_rfc3339() -> str:
    """The clock's time to the second, formatted once per second (every write stamps a time)."""
    global _formatted
    now = clock.now().replace(microsecond=0)
    second, text = _formatted
    if now != second:
        text = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        _formatted = (now, text)
    return text


def new_uid() -> str:
    return str(uuid.uuid4())


def generated_name(prefix: str) -> str:
    """metadata.generateName: the prefix plus five random characters."""
    return prefix + "".join(secrets.choice(_GENERATE_ALPHABET) for _ in range(5))


def no_defaults(obj: dict) -> None:
    """The defaults hook of a kind the server fills in nothing for (Event, Lease)."""


# Top-level struct fields whose null is Go's zero struct. Others keep their null: a list such as
# an EndpointSlice's `endpoints` has no omitempty and is written back as null, as upstream does.
_STRUCT_FIELDS = ("metadata", "spec", "status")


def _drop_top_level_nulls(obj: dict) -> None:
    """`"spec": null` is Go's zero value of the field, as if it were absent: the kinds' defaults
    may then fill it in as for a missing one."""
    for key in _STRUCT_FIELDS:
        if key in obj and obj[key] is None:
            del obj[key]


def kind_defaults(obj: dict) -> None:
    """The kind's spec/status defaults; safe to run on a manifest before comparing with the stored one."""
    _drop_top_level_nulls(obj)
    info = kind_info(obj.get("kind", ""))
    if info is not None and info.defaults is not None:
        info.defaults(obj)


def on_create(obj: dict, namespaced: bool) -> None:
    """All create-time defaults: metadata the server owns, then the kind's own defaults."""
    _drop_top_level_nulls(obj)
    meta = obj.setdefault("metadata", {})
    if namespaced:
        if not meta.get("namespace"):
            meta["namespace"] = "default"
    else:
        meta.pop("namespace", None)
    if not meta.get("name") and isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = generated_name(meta["generateName"])
    meta["uid"] = new_uid()
    meta["creationTimestamp"] = now_rfc3339()
    info = kind_info(obj.get("kind", ""))
    if info is not None and info.workload:
        meta["generation"] = 1
    for key in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(key, None)
    kind_defaults(obj)
    if info is not None and info.prepare_for_create is not None:
        info.prepare_for_create(obj)

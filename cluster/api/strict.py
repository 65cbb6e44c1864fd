"""?fieldValidation=Strict|Warn|Ignore: unknown fields, judged by cluster.kubeapi.openapi's schemas.

Strict (kubectl's default) answers 400; Warn adds a Warning header per field; either way the
unknown fields are dropped before storing, as the real API server does.
"""

from __future__ import annotations

import re

from django.http import HttpRequest

from cluster.apiserver.errors import bad_request
from cluster.kubeapi import openapi

_PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def _drop(obj: object, path: str) -> None:
    parts = [name or (int(index) if index.isdigit() else index) for name, index in _PART.findall(path)]
    for part in parts[:-1]:
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif isinstance(obj, list) and isinstance(part, int) and part < len(obj):
            obj = obj[part]
        else:
            return
    if isinstance(obj, dict) and parts:
        obj.pop(parts[-1], None)


def check(request: HttpRequest, kind: str, version: str, obj: object, patch: bool = False) -> list[str]:
    """Drop unknown fields from `obj`; 400 under Strict; returns Warning header values under Warn."""
    mode = request.GET.get("fieldValidation", "Warn")
    if mode == "Ignore" or not isinstance(obj, dict):
        return []
    unknown = openapi.strict_decode(kind, obj)
    if not unknown:
        return []
    if mode == "Strict":
        if patch:
            raise bad_request("strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown))
        raise bad_request(openapi.strict_error_message(kind, version, unknown))
    for path in unknown:
        _drop(obj, path)
    return [f'299 - "unknown field \\"{path}\\""' for path in unknown]

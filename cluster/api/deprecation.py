"""Warnings a v1.33 API server sends with every request of a deprecated resource.

`v1 Endpoints` is deprecated in favour of discovery.k8s.io/v1 EndpointSlice: every request on it
(reads, watches and writes) carries the warning, which kubectl prints on stderr as
`Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`.
"""

from __future__ import annotations

from django.http import HttpResponseBase

_DEPRECATED = {
    ("", "v1", "endpoints"): "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
}


def _resource(rest: str) -> str:
    parts = [p for p in rest.split("/") if p]
    if len(parts) >= 3 and parts[0] == "namespaces":
        return parts[2]
    return parts[0] if parts else ""


def warning_for(group: str, version: str, rest: str) -> str | None:
    text = _DEPRECATED.get((group, version, _resource(rest)))
    return f'299 - "{text}"' if text else None


def add_warning(response: HttpResponseBase, group: str, version: str, rest: str) -> HttpResponseBase:
    warning = warning_for(group, version, rest)
    if warning:
        existing = response.get("Warning")
        response["Warning"] = f"{existing}, {warning}" if existing else warning
    return response

"""Table output for kubectl, through F's cluster.kubeapi.negotiation when it is installed."""

from __future__ import annotations

import importlib

from django.http import HttpRequest


def _negotiation():
    try:
        return importlib.import_module("cluster.kubeapi.negotiation")
    except ImportError:
        return None


def _accept(request: HttpRequest) -> str:
    return request.headers.get("Accept", "")


def wants_table(request: HttpRequest) -> bool:
    return "as=Table" in _accept(request) and _negotiation() is not None


def list_table(request: HttpRequest, kind: str, items: list[dict], revision: int) -> dict | None:
    module = _negotiation()
    if module is None or "as=Table" not in _accept(request):
        return None
    return module.render_list(_accept(request), kind, items, revision, request.GET)


def object_table(request: HttpRequest, kind: str, obj: dict) -> dict | None:
    module = _negotiation()
    if module is None or "as=Table" not in _accept(request):
        return None
    return module.render_object(_accept(request), kind, obj, request.GET)


def watch_object(accept: str, params: dict, kind: str, obj: dict) -> dict:
    module = _negotiation()
    if module is None or "as=Table" not in accept:
        return obj
    return module.render_watch_object(accept, kind, obj, params)

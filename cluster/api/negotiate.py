"""Table output for kubectl, rendered by cluster.kubeapi.negotiation."""

from __future__ import annotations

from django.http import HttpRequest

from cluster.kubeapi import negotiation


def _accept(request: HttpRequest) -> str:
    return request.headers.get("Accept", "")


def list_table(request: HttpRequest, kind: str, items: list[dict], revision: int) -> dict | None:
    if "as=Table" not in _accept(request):
        return None
    return negotiation.render_list(_accept(request), kind, items, revision, request.GET)


def object_table(request: HttpRequest, kind: str, obj: dict) -> dict | None:
    if "as=Table" not in _accept(request):
        return None
    return negotiation.render_object(_accept(request), kind, obj, request.GET)


def watch_object(accept: str, params: dict, kind: str, obj: dict) -> dict:
    if "as=Table" not in accept:
        return obj
    return negotiation.render_watch_object(accept, kind, obj, params)

"""The cluster a REST request addresses, once the caller may act on the target there."""

from __future__ import annotations

from django.http import HttpRequest

from cluster.api.paths import Target
from cluster.auth.access import get_cluster
from cluster.models import Cluster


def find_cluster(request: HttpRequest, name: str, verb: str, target: Target) -> Cluster:
    """The cluster if the caller may `verb` the target there (cluster.auth.access: 404/403/401/429)."""
    resource = target.info.plural + (f"/{target.subresource}" if target.subresource else "")
    object_name = "" if verb == "create" and not target.subresource else target.name
    return get_cluster(
        request,
        name,
        verb=verb,
        resource=resource,
        group=target.info.group,
        namespace=target.namespace,
        name=object_name,
    )

"""Who may see and change a cluster: one place, so labs can tighten it later."""

from __future__ import annotations

from django.http import HttpRequest

from cluster.models import Cluster


def _is_owner_or_staff(request: HttpRequest, cluster: Cluster) -> bool:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff) or cluster.owner_id == user.pk


def can_view(request: HttpRequest, cluster: Cluster) -> bool:
    """Public clusters (the classroom demo) are visible to everyone; others to their owner and staff."""
    return cluster.public or _is_owner_or_staff(request, cluster)


def can_edit(request: HttpRequest, cluster: Cluster) -> bool:
    """For now whoever may view a cluster may change it (students drive the demo with kubectl)."""
    return can_view(request, cluster)

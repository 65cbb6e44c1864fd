"""Who may see and change a cluster: one place, so labs can tighten it later.

Both functions take a request or a user (the websocket consumer has only `scope["user"]`).
"""

from __future__ import annotations

from cluster.models import Cluster


def _user(request_or_user):
    return getattr(request_or_user, "user", request_or_user)


def _is_owner_or_staff(request_or_user, cluster: Cluster) -> bool:
    user = _user(request_or_user)
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or cluster.owner_id == user.pk


def can_view(request_or_user, cluster: Cluster) -> bool:
    """Public clusters (the classroom demo) are visible to everyone; a sandbox to its owner and staff."""
    return cluster.public or _is_owner_or_staff(request_or_user, cluster)


def can_edit(request_or_user, cluster: Cluster) -> bool:
    """For now whoever may view a cluster may change it (students drive the demo with kubectl)."""
    return can_view(request_or_user, cluster)

"""Kept for older imports: the one access rule lives in cluster.auth.access."""

from __future__ import annotations

from cluster.auth.access import caller_of, may_see, may_write


def can_view(request_or_user, cluster) -> bool:
    return may_see(caller_of(request_or_user), cluster)


def can_edit(request_or_user, cluster) -> bool:
    return may_write(caller_of(request_or_user), cluster)

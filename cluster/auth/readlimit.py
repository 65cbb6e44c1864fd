"""Anonymous reads that cost the server most (snapshots, lists) are rate-limited per address.

A visitor who is not signed in may read a public cluster, and a snapshot or a list of a 1,000-pod
cluster is megabytes: at most KUBESIM_ANONYMOUS_READS_PER_MINUTE of them per client address, then
429 TooManyRequests with Retry-After, as kube-apiserver answers an overload. An address the class
shares (KUBESIM_SHARED_ADDRESSES, a school's NAT) is not limited: the snapshots are shared builds
(cluster/flow/snapshotcache.py) whoever asks. Signed-in callers (the teacher, students with their
sandbox token or session) are not limited here. Watches are not counted: one stays open.
"""

from __future__ import annotations

from django.conf import settings

from cluster.auth.access import caller_of, too_many_requests
from cluster.auth.clientaddr import in_networks
from cluster.auth.ratelimit import RateLimiter

READS = RateLimiter()
WINDOW = 60.0


def limit_anonymous_read(who) -> None:
    """Count one snapshot or list read; ApiError 429 when an anonymous address read too many."""
    caller = caller_of(who)
    if not caller.anonymous or in_networks(caller.client, settings.KUBESIM_SHARED_ADDRESSES):
        return
    limit = settings.KUBESIM_ANONYMOUS_READS_PER_MINUTE
    seconds = READS.retry_after(("addr", caller.client), limit, WINDOW)
    if seconds:
        raise too_many_requests(seconds)

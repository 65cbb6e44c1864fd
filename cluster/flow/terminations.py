"""Who asked for a graceful deletion, kept until the kubelet removes the object.

A Pod on a node is not removed by the DELETE that asks for it: the API server stamps its
deletionTimestamp and its kubelet deletes it once the containers have stopped. The trace the pod
belongs to ends only then ("deleted"), and its ending names the one who asked (kubectl, a
controller, the garbage collector) with their reason, not the kubelet that carried it out.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from cluster.models import Cluster, Termination

if TYPE_CHECKING:
    from cluster.apiserver.actor import Actor


def remember(cluster: Cluster, row, actor: Actor, story: str = "") -> None:
    """At the deletion's mark (inside its transaction): the first request is the one remembered,
    with the story the deletion started (`story`, a trace id), ended when the object is gone."""
    if not (getattr(row, "trace_id", None) or story) or not row.uid:
        return  # no trace to end: nothing to say later
    reason_en, reason_zh = actor.reason or ("", "")
    Termination.objects.get_or_create(
        cluster_id=cluster.pk,
        uid=row.uid,
        defaults={
            "client": actor.client,
            "detail": actor.detail[:300],
            "by": actor.by[:300],
            "reason_en": reason_en,
            "reason_zh": reason_zh,
            "trace_id": story,
        },
    )


def requester(cluster: Cluster, row, actor: Actor) -> tuple[Actor, str]:
    """At the final delete: the actor who asked for the graceful deletion and the story it started
    ("" for none), and forget them; (`actor`, "") when the object was removed at once."""
    if not row.uid:
        return actor, ""
    found = Termination.objects.filter(cluster_id=cluster.pk, uid=row.uid).first()
    if found is None:
        return actor, ""
    found.delete()
    reason = (found.reason_en, found.reason_zh) if found.by and found.reason_en else None
    # The one who asked, as remembered, inside the final delete's trace.
    asked = dataclasses.replace(
        actor,
        client=found.client,
        detail=found.detail,
        by=found.by,
        reason=reason,
        subresource="",
        cause="",
        budget=None,
    )
    return asked, found.trace_id

"""The teacher's "Class may write" switch: stored on the cluster, and every open page told at once
(the hubs read it with the flow settings and send `access`, cluster/broadcast/hub.py)."""

from __future__ import annotations

from cluster.broadcast import nudge
from cluster.models import Cluster


def set_class_may_write(cluster: Cluster, on: bool) -> None:
    if cluster.class_may_write == on:
        return
    cluster.class_may_write = on
    cluster.save(update_fields=["class_may_write"])
    nudge.notify(cluster.name, None)  # news without a revision: the hubs read the settings again

"""Who is calling the API server: for the flow's steps and for Events' source."""

from __future__ import annotations

from dataclasses import dataclass

from cluster.models import FlowTrace


@dataclass(slots=True)
class Actor:
    client: str  # kubectl | web | upload | api | controller-manager | scheduler | kubelet
    detail: str = ""  # e.g. the User-Agent "kubectl/v1.33.1 (linux/amd64)", or "web form"
    trace: FlowTrace | None = None  # the trace this write belongs to (components pass their object's)
    node: str = ""  # the kubelet's node
    # Who, in kubectl's words, and why: a controller that deletes a pod says so, and the pod's
    # trace ends with it ("replicationcontroller/nginx", (english, chinese)).
    by: str = ""
    reason: tuple[str, str] | None = None
    # The subresource the write came through ("eviction": a delete the Eviction API made), so
    # the flow tells what was really sent.
    subresource: str = ""

"""After a write request's response: the cluster it wrote to was acted on by a person.

The lab grader checks a sandbox at once when its student acts (cluster/activity.requested_at); a
check that began while the request was still writing saw the cluster as it was, so the request's
end is noted as well, and the grader woken, once the writes are committed.
"""

from __future__ import annotations

from cluster.broadcast import nudge
from cluster.controlplane import activity


class WriteRequestDone:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        name = getattr(request, "kubesim_writes_to", None)
        if name:
            activity.acted(name)
            nudge.NUDGES.fire(name)
        return response

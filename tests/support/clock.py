"""Moving a cluster's simulated clock as the teacher does (POST /clusters/<c>/clock)."""

from __future__ import annotations

import json
import urllib.request

from tests.support.auth import teacher_headers


def jump_clock(base_url: str, cluster: str, body: dict) -> dict:
    """POST `body` ({"seconds": N} or {"to": "next-schedule"}) as the teacher; the clock's state."""
    request = urllib.request.Request(
        f"{base_url}/clusters/{cluster}/clock",
        data=json.dumps(body).encode(),
        headers={**teacher_headers(), "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())

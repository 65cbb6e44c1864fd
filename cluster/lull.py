"""Work that can wait for a lull: Events and scheduling explanations are news about the control
plane's work, not part of it, so during a burst they wait until the components of this process
have been idle a moment (or until they have waited long enough)."""

from __future__ import annotations

import time

from cluster import broadcast

QUIET_SECONDS = 0.02


async def lull(cluster_name: str, deadline: float, quiet: float = QUIET_SECONDS) -> bool:
    """Wait until this process's control plane has been idle `quiet` seconds (True), or until
    `deadline` (time.monotonic(); False). Woken by the control plane's changes between at work and
    idle (`broadcast.next_change`), not by a poll."""
    while (now := time.monotonic()) < deadline:
        if broadcast.busy(cluster_name):
            await broadcast.next_change(cluster_name, deadline - now)
        elif not await broadcast.next_change(cluster_name, min(quiet, deadline - now)) and (
            time.monotonic() - now >= quiet
        ):
            return True  # idle all that time
    return False

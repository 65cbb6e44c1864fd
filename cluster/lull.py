"""Work that can wait for a lull: Events and scheduling explanations are news about the control
plane's work, not part of it, so during a burst they wait until the components of this process
have been idle a moment (or until they have waited long enough)."""

from __future__ import annotations

import asyncio
import time

from cluster import broadcast

QUIET_SECONDS = 0.02
POLL_SECONDS = 0.01


async def lull(cluster_name: str, deadline: float, quiet: float = QUIET_SECONDS) -> bool:
    """Wait until this process's control plane has been idle `quiet` seconds (True), or until
    `deadline` (time.monotonic(); False)."""
    quiet_since = None
    while (now := time.monotonic()) < deadline:
        if broadcast.busy(cluster_name):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= quiet:
            return True
        await asyncio.sleep(POLL_SECONDS)
    return False

"""Work that can wait for a lull: Events and scheduling explanations are news about the control
plane's work, not part of it, so during a burst they wait until the components of this process
have been idle a moment (or until they have waited long enough)."""

from __future__ import annotations

import asyncio
import time

from cluster.broadcast import nudge

QUIET_SECONDS = 0.02


async def lull(cluster_name: str, deadline: float, quiet: float = QUIET_SECONDS) -> bool:
    """Wait until this process's control plane has been idle `quiet` seconds (True), or until
    `deadline` (time.monotonic(); False). While it is at work this waits for its end
    (`nudge.next_change`: one wake-up, not a poll); then it sleeps `quiet` and looks whether
    the control plane stayed idle all that time (a burst starts and ends work hundreds of times
    a second: waking on every change cost more than the poll did)."""
    while (now := time.monotonic()) < deadline:
        if nudge.busy(cluster_name):
            await nudge.next_change(cluster_name, deadline - now)
            continue
        await asyncio.sleep(min(quiet, deadline - now))
        stayed_idle = not nudge.busy(cluster_name) and nudge.changed_at(cluster_name) <= now
        if stayed_idle and time.monotonic() - now >= quiet:
            return True
    return False

"""The scale-out profile's channel layer as settings configure it, on the real Redis: a receive
that waits past channels-redis' 5 s block keeps waiting quietly. (redis-py 8 reads with a 5 s
timeout by default: every quiet receive failed, and one that timed out as Redis answered lost the
message, a nudge or an attach frame.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.scaleout import support

pytestmark = pytest.mark.scaleout

RECEIVE = """
import asyncio, time
from channels.layers import get_channel_layer

async def main():
    layer = get_channel_layer()
    began = time.monotonic()
    try:
        await asyncio.wait_for(layer.receive("kubesim-test.quiet"), 8)
    except asyncio.TimeoutError:
        print(f"quiet {time.monotonic() - began:.0f} s")
    await layer.send("kubesim-test.after", {"type": "x.y", "n": 1})
    print("then", (await asyncio.wait_for(layer.receive("kubesim-test.after"), 8))["n"])

asyncio.run(main())
"""


def test_a_quiet_receive_waits_without_errors_and_the_next_message_arrives():
    env = support.base_env(REDIS_URL=support.redis_url(), KUBESIM_SQLITE_PATH="/nonexistent/unused.sqlite3")
    try:
        run = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", RECEIVE],
            cwd=support.ROOT, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    finally:
        support.flush_redis(env["REDIS_URL"])
    assert run.returncode == 0, run.stderr
    assert "quiet 8 s\nthen 1\n" in run.stdout, run.stdout + run.stderr

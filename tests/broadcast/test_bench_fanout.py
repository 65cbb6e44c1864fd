"""`manage.py bench_fanout` against its own embedded server: every client gets every step."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.server  # the benchmark starts its own server


def test_the_benchmark_reports_where_the_time_goes_and_no_client_misses_a_step():
    run = subprocess.run(
        [sys.executable, "manage.py", "bench_fanout", "--clients", "6", "--pods", "2", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["clients"] == 6 and result["pods"] == 2 and result["setup"] == "embedded"
    assert result["missed"] == 0
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    for part in ("accept", "chain", "delivery"):
        assert 0 <= result[f"{part}_p50_ms"] <= result[f"{part}_p99_ms"], part
    # The last step reaches a client after the first step was recorded: the parts add up.
    assert result["accept_p50_ms"] < result["p50_ms"]
    assert not math.isnan(result["kib_per_client"])

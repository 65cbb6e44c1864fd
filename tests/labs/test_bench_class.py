"""`manage.py bench_class` against the server it starts: a small class works through its lab, every
write is timed on the wire, every check result arrives, and the idle sandboxes write nothing."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.server  # the benchmark starts its own server


def test_a_small_class_reports_its_writes_checks_cpu_and_idle_cost():
    run = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "bench_class",
            *("--students", "2", "--nodes", "2", "--warmup", "1"),
            *("--park-after", "2", "--idle-after", "8", "--idle-window", "2"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    # An RC and two label steps per student, each timed on the wire and as the threads saw it.
    writes = re.search(
        r"n=(\d+) p50=(\d+) ms p99=(\d+) ms .*as the bench's threads saw them.*: "
        r"p50=(\d+) ms p99=(\d+) ms",
        out,
    )
    assert writes and int(writes.group(1)) == 6, out
    assert int(writes.group(2)) <= int(writes.group(3))
    # On the wire a write ends when its response arrives, before a thread reads it: never later
    # (a wall clock stepped during the run once made every wire figure seconds late).
    assert int(writes.group(3)) <= int(writes.group(5)) + 1, out
    speeds = re.findall(r"machine speed ([\d.]+) k loops/CPU-s", out)
    assert len(speeds) == 2 and all(float(speed) > 0 for speed in speeds), out
    assert "no result in time: 0" in out
    assert re.search(r"Running \(the last step passed\): n=2 ", out), out
    cpu = re.search(r"server CPU from the first write to the last step passed: ([\d.]+) s over", out)
    assert cpu and float(cpu.group(1)) > 0, out
    assert re.search(r"0\.0 API writes/s, 0\.0 flow steps/s, database file changed: no", out), out


def test_a_class_joins_through_a_trusted_proxy_and_is_limited_from_one_untrusted_address():
    run = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "bench_class",
            "--joins-through-proxy",
            "--students",
            "14",
            "--nodes",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert re.search(r"14 students join through a trusted proxy .*: 14 joined, 0 refused \(429\)", out), out
    assert "all within a minute: yes" in out, out
    # The per-address limit (KUBESIM_JOIN_ATTEMPTS_PER_MINUTE, 10) holds for the untrusted address.
    assert re.search(r"14 students join from one untrusted address .*: 10 joined, 4 refused \(429\)", out), (
        out
    )


def test_capacity_grows_the_class_until_the_writes_p99_passes_the_target():
    # A target no class can meet on any machine ends the search at its first run; a target any
    # class meets runs every size up to --max-students.
    def capacity(target: str) -> str:
        run = subprocess.run(
            [
                sys.executable, "manage.py", "bench_class", "--capacity",
                *("--students", "2", "--step", "1", "--max-students", "3", "--nodes", "2", "--warmup", "1"),
                "--p99-ms", target,
            ],
            cwd=REPO, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        return run.stdout

    out = capacity("0.001")
    assert out.count("-- capacity: a class of") == 1, out
    assert re.search(r"capacity: no class size kept the writes' p99 ≤ 0\.001 ms; runs: 2: \d+ ms", out), out
    out = capacity("60000")
    assert re.search(r"a class of 2\n(.|\n)*a class of 3\n", out), out
    found = r"capacity: 3 students with the writes' p99 ≤ 60000 ms \(3 per core; 1 core used"
    assert re.search(found, out), out
    assert "idle sandboxes" not in out  # no idle window when sizing

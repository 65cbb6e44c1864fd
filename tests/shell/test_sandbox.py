"""A hostile student in a container: every command ends by its budget, whatever it is, and ends at
once when its caller or its container is gone (cluster/shell/limits.py, docs/shell.md)."""

from __future__ import annotations

import resource
import threading
import time

import pytest

from cluster.shell.session import run_exec
from cluster.shell.streams import Closed, InputStream
from k8s import clock
from tests.shell.support import context, run, sh

pytestmark = pytest.mark.django_db


class Running:
    """One exec in a thread of its own, so that a command that never ends fails the test."""

    def __init__(self, argv: list[str], ctx=None, stdin: InputStream | None = None) -> None:
        self.ctx = ctx or context("busybox:1.36")
        self.stdin = stdin or InputStream()
        self.out: list[str] = []
        self.status: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(argv,), daemon=True)
        self.thread.start()

    def _run(self, argv: list[str]) -> None:
        try:
            self.status = run_exec(self.ctx, argv, self.stdin, lambda _channel, text: self.out.append(text))
        except BaseException as exc:
            self.error = exc

    def wait(self, seconds: float) -> float:
        """Seconds it took; fails the test if it is still running after `seconds`."""
        start = time.monotonic()
        self.thread.join(seconds)
        assert not self.thread.is_alive(), f"still running after {seconds} s"
        return time.monotonic() - start


FAN_OUT = "echo '. /tmp/f; . /tmp/f' > /tmp/f; . /tmp/f"


def test_a_relative_program_that_is_not_there_answers_at_once():
    running = Running(["./hello.sh"])
    running.wait(5)
    assert running.status == 127
    assert "".join(running.out) == (
        "OCI runtime exec failed: exec failed: unable to start container process: "
        'exec: "./hello.sh": stat ./hello.sh: no such file or directory: unknown\n'
    )


def test_relative_paths_inside_the_shell_resolve():
    running = Running(["sh", "-c", "./hello.sh; cat ../../x; ls ./nothing"])
    running.wait(5)
    text = "".join(running.out)
    assert "sh: ./hello.sh: No such file or directory" in text
    assert "cat: ../../x: No such file or directory" in text


@pytest.mark.parametrize("flag", ["-E", ""])
def test_a_catastrophic_pattern_matches_in_linear_time(flag):
    line = "a" * 40 + "b"
    running = Running(["sh", "-c", f'echo {line} | grep {flag} "(a+)+$"; echo status=$?'])
    assert running.wait(3) < 1.0
    assert "".join(running.out) == "status=1\n"


def test_grep_reads_basic_and_extended_patterns_as_posix_does():
    assert sh("echo 'a+b' | grep 'a+b'", "busybox:1.36", "sh")[1] == "a+b\n"
    assert sh("echo aaab | grep 'a\\+b'", "busybox:1.36", "sh")[1] == "aaab\n"
    assert sh("echo aaab | grep -E '^a{2,}b$'", "busybox:1.36", "sh")[1] == "aaab\n"
    assert sh("echo 'x|y' | grep -c 'x|y'", "busybox:1.36", "sh")[1] == "1\n"
    assert sh("printf 'ab\\nAB\\n' | grep -i 'ab'", "busybox:1.36", "sh")[1] == "ab\nAB\n"
    status, _out, err = sh("echo x | grep -E '(x'", "busybox:1.36", "sh")
    assert (status, err) == (2, "grep: Unmatched ( or \\(\n")


def test_doubling_a_variable_is_killed_by_the_memory_cap():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    running = Running(["sh", "-c", "X=a; " + "X=$X$X; " * 40 + "echo survived"])
    running.wait(10)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert running.status == 137
    assert "survived" not in "".join(running.out)
    assert grown_mib < 100


def test_the_container_memory_limit_is_the_cap_below_the_server_cap():
    ctx = context("busybox:1.36", memory_limit=1 << 20)
    status, out, _err = sh("X=a; " + "X=$X$X; " * 21 + "echo survived", shell="sh", ctx=ctx)
    assert status == 137 and out == ""
    ctx = context("busybox:1.36", memory_limit=1 << 20)
    assert sh("X=a; " + "X=$X$X; " * 19 + "echo survived", shell="sh", ctx=ctx)[1] == "survived\n"


def test_a_fan_out_of_sourced_files_ends_by_its_step_budget(settings):
    settings.KUBESIM_SHELL_MAX_STEPS = 2000
    running = Running(["sh", "-c", FAN_OUT])
    running.wait(20)
    assert running.status == 137
    assert "KubeSim stopped this command: it ran more than 2000 steps" in "".join(running.out)


def test_a_fan_out_of_sourced_files_ends_by_its_cpu_budget(settings):
    settings.KUBESIM_SHELL_CPU_SECONDS = 0.3
    running = Running(["sh", "-c", FAN_OUT])
    running.wait(20)
    assert running.status == 137
    assert "KubeSim stopped this command: it used more than 0.3 s of CPU" in "".join(running.out)


def test_a_runaway_command_stops_when_its_caller_leaves(settings):
    settings.KUBESIM_SHELL_MAX_STEPS = 10**9
    settings.KUBESIM_SHELL_CPU_SECONDS = 1000.0
    running = Running(["sh", "-c", FAN_OUT])
    time.sleep(0.5)
    assert running.thread.is_alive()
    running.stdin.abort()
    assert running.wait(2) < 2
    assert isinstance(running.error, Closed)


def test_a_sleep_ends_when_the_container_is_killed():
    running = Running(["sh", "-c", "sleep 30; echo woke"])
    time.sleep(0.3)
    running.stdin.kill(137)
    assert running.wait(2) < 1
    assert running.status == 137 and "woke" not in "".join(running.out)


def test_sleep_runs_on_the_cluster_clock():
    fake = clock.FakeClock()
    previous = clock.use(fake)
    try:
        running = Running(["sh", "-c", "sleep 20; echo woke"])
        time.sleep(0.3)
        assert running.thread.is_alive()
        fake.advance(20)
        assert running.wait(2) < 1
    finally:
        clock.use(previous)
    assert "".join(running.out) == "woke\n"


def test_the_writable_layer_is_the_containers_ephemeral_storage():
    ctx = context("busybox:1.36", storage_limit=1000)
    script = f"echo {'x' * 600} > /tmp/a; echo {'y' * 600} > /tmp/b; echo $?"
    _status, out, err = sh(script, shell="sh", ctx=ctx)
    assert out == "1\n"
    assert "No space left on device" in err
    status, out, err = sh("rm /tmp/a; echo small > /tmp/b && cat /tmp/b", shell="sh", ctx=ctx)
    assert (status, out) == (0, "small\n")


def test_the_server_caps_the_writable_layer_where_no_limit_is_set(settings):
    settings.KUBESIM_SHELL_STORAGE_BYTES = 1000
    status, _out, err = sh(f"echo {'x' * 2000} > /tmp/a", "busybox:1.36", "sh")
    assert status == 1 and "No space left on device" in err


def test_output_has_a_cap(settings):
    settings.KUBESIM_SHELL_OUTPUT_BYTES = 1000
    status, out, err = sh(f"echo {'x' * 600}; echo {'y' * 600}; echo {'z' * 600}", "busybox:1.36", "sh")
    assert status == 137
    assert "z" not in out
    assert "KUBESIM_SHELL_OUTPUT_BYTES" in err


def test_a_deleted_relative_path_does_not_loop():
    _status, out, _err = run(["sh", "-c", "cd /tmp && touch f && rm f && ls f; echo done"], "busybox:1.36")
    assert out.endswith("done\n")

"""Containers run what they say, seen with the real kubectl: logs, exits, restarts, init containers."""

from __future__ import annotations

import json
import re
import time

import pytest

pytestmark = pytest.mark.kubectl


def _wait(condition, seconds: float = 30, what: str = "") -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")


def _pod(kubectl, name: str) -> dict:
    return json.loads(kubectl.ok("get", "pod", name, "-o", "json"))


def _row(kubectl, name: str) -> list[str]:
    return kubectl.ok("get", "pod", name, "--no-headers").split()


def test_a_job_prints_hello_and_logs_job_name_shows_it(kubectl):
    assert kubectl.ok("create", "job", "hello", "--image=busybox:1.36", "--", "echo", "hello") == (
        "job.batch/hello created\n"
    )
    _wait(
        lambda: (
            json.loads(kubectl.ok("get", "job", "hello", "-o", "json")).get("status", {}).get("succeeded")
        ),
        what="job hello to succeed",
    )
    assert kubectl.ok("logs", "job/hello") == "hello\n"
    stamped = kubectl.ok("logs", "job/hello", "--timestamps")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hello\n", stamped)


def test_echo_then_sleep_logs_started_and_stays_running(kubectl):
    out = kubectl.ok("run", "echosleep", "--image=busybox:1.36", "--", "sh", "-c", "echo started; sleep 3600")
    assert out == "pod/echosleep created\n"
    _wait(lambda: _row(kubectl, "echosleep")[1:4] == ["1/1", "Running", "0"], what="echosleep running")
    _wait(lambda: kubectl.ok("logs", "echosleep") == "started\n", what="its log")
    assert kubectl.ok("logs", "pod/echosleep", "--tail=0") == ""
    assert kubectl.ok("logs", "echosleep", "--since=1h") == "started\n"


def test_a_loop_keeps_running_and_its_log_grows(kubectl):
    script = "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"
    kubectl.ok("run", "ticker", "--image=busybox:1.36", "--", "sh", "-c", script)
    _wait(lambda: "tick 2" in kubectl.ok("logs", "ticker"), seconds=20, what="three ticks")
    assert _row(kubectl, "ticker")[1:4] == ["1/1", "Running", "0"]
    assert kubectl.ok("logs", "ticker").startswith("tick 0\ntick 1\ntick 2\n")
    assert re.fullmatch(r"tick \d+\n", kubectl.ok("logs", "ticker", "--tail=1"))


def test_a_crashing_container_backs_off_and_previous_shows_the_last_run(kubectl):
    kubectl.ok("run", "crasher", "--image=busybox:1.36", "--", "sh", "-c", "echo about to fail; exit 2")
    _wait(lambda: _row(kubectl, "crasher")[2] == "CrashLoopBackOff", what="CrashLoopBackOff")
    status = _pod(kubectl, "crasher")["status"]["containerStatuses"][0]
    assert status["lastState"]["terminated"]["exitCode"] == 2
    assert status["lastState"]["terminated"]["reason"] == "Error"
    assert kubectl.ok("logs", "crasher", "--previous") == "about to fail\n"
    assert kubectl.ok("logs", "crasher") == "about to fail\n"  # the last run, while it waits
    describe = kubectl.ok("describe", "pod", "crasher")
    assert "Back-off restarting failed container crasher in pod crasher_default(" in describe
    result = kubectl.run("logs", "echosleep-missing", "--previous")
    assert result.stderr.strip() == (
        'error: error from server (NotFound): pods "echosleep-missing" not found in namespace "default"'
    )


def test_previous_of_a_container_that_never_restarted(kubectl):
    kubectl.ok("run", "once", "--image=busybox:1.36", "--restart=Never", "--", "sh", "-c", "echo done")
    _wait(lambda: _row(kubectl, "once")[2] == "Completed", what="once completed")
    result = kubectl.run("logs", "once", "--previous")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'Error from server (BadRequest): previous terminated container "once" in pod "once" not found'
    )


INIT_POD = """
apiVersion: v1
kind: Pod
metadata: {name: %(name)s}
spec:
  restartPolicy: %(policy)s
  initContainers:
  - name: init-check
    image: busybox:1.36
    command: ["sh", "-c", "%(init)s"]
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "echo app up; sleep 3600"]
"""


def test_init_containers_error_crash_loop_and_success(kubectl):
    for name, policy, init in (
        ("init-never", "Never", "echo checking; exit 1"),
        ("init-always", "Always", "exit 1"),
        ("init-ok", "Always", "echo init ran"),
    ):
        kubectl.ok("apply", "-f", "-", stdin=INIT_POD % {"name": name, "policy": policy, "init": init})
    _wait(lambda: _row(kubectl, "init-never")[2] == "Init:Error", what="Init:Error")
    assert _row(kubectl, "init-never")[1] == "0/1"
    assert _pod(kubectl, "init-never")["status"]["phase"] == "Failed"
    assert kubectl.ok("logs", "init-never", "-c", "init-check") == "checking\n"
    _wait(lambda: _row(kubectl, "init-always")[2] == "Init:CrashLoopBackOff", what="Init:CrashLoopBackOff")
    _wait(lambda: _row(kubectl, "init-ok")[1:3] == ["1/1", "Running"], what="init-ok running")
    assert kubectl.ok("logs", "init-ok", "-c", "init-check") == "init ran\n"
    _wait(lambda: kubectl.ok("logs", "init-ok") == "app up\n", what="the app's log")
    result = kubectl.run("logs", "init-ok", "-c", "nope")
    assert result.stderr.strip() == "error: container nope is not valid for pod init-ok"


def test_logs_of_a_deployment(kubectl):
    kubectl.ok(
        "create",
        "deployment",
        "talker",
        "--image=busybox:1.36",
        "--",
        "sh",
        "-c",
        "echo hi from talker; sleep 3600",
    )
    _wait(lambda: kubectl.run("logs", "deploy/talker").stdout == "hi from talker\n", what="deployment logs")


def test_logs_follow_prints_lines_as_they_come_and_ends_with_the_container(kubectl):
    script = "sleep 1; for i in 1 2 3; do echo line $i; sleep 1; done"
    kubectl.ok("run", "counter", "--image=busybox:1.36", "--restart=Never", "--", "sh", "-c", script)
    _wait(lambda: _row(kubectl, "counter")[2] == "Running", what="counter running")
    began = time.time()
    result = kubectl.run("logs", "-f", "counter", timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "line 1\nline 2\nline 3\n"
    assert time.time() - began >= 2  # it followed the container to its end
    _wait(lambda: _row(kubectl, "counter")[2] == "Completed", what="counter completed")

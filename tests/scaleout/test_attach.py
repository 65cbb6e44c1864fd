"""kubectl attach in the scale-out profile: the container's process runs in the control-plane
process that leads its cluster, the websocket reaches a web process that runs no control plane,
and the streams go between them over Redis (the real kubectl, PostgreSQL and Redis)."""

from __future__ import annotations

import json
import subprocess
import urllib.request

import pytest

from tests.kubectl.conftest import Kubectl, _kubectl_binary
from tests.scaleout import workloads
from tests.scaleout.support import free_port, wait_for
from tests.support import terminal

pytestmark = [pytest.mark.scaleout, pytest.mark.kubectl]


@pytest.fixture
def kubectl(scaled, tmp_path) -> Kubectl:
    port, api_port = free_port(), free_port()
    scaled.env["API_PORT"] = str(api_port)
    scaled.env["KUBESIM_PARK_AFTER_SECONDS"] = "5"
    scaled.env["LOG_LEVEL"] = "INFO"  # the control plane says when it parks a sandbox
    web = ("serve", "--no-control-plane", "--port", str(port), "--api-port", str(api_port))
    scaled.start(*web, name="serve")
    base = f"http://127.0.0.1:{port}/clusters/demo"
    wait_for(lambda: _answers(f"{base}/version"), 60, "the web process")
    scaled.controlplane("cp-a")
    wait_for(lambda: workloads.holder(base) == "cp-a", 20, "cp-a to lead")
    config = tmp_path / "teacher.kubeconfig"
    scaled.manage("kubeconfig", "--cluster", "demo", "--output", str(config))
    home = tmp_path / "home"
    home.mkdir()
    return Kubectl(_kubectl_binary(), base, home, config, cwd=tmp_path)


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=2).close()
        return True
    except OSError:
        return False


def _running(kubectl: Kubectl, name: str) -> bool:
    result = kubectl.run("get", "pod", name, "-o", "json")
    if result.returncode != 0:
        return False
    statuses = (json.loads(result.stdout).get("status") or {}).get("containerStatuses") or []
    return bool(statuses) and all("running" in (s.get("state") or {}) for s in statuses)


def test_run_i_pipes_stdin_to_a_process_in_the_control_plane_process_and_returns_its_exit_code(kubectl):
    result = kubectl.run(
        "run", "piped", "--rm", "-i", "--image=busybox:1.36", "--restart=Never", "--", "sh",
        stdin="echo from stdin\nhostname\nexit 3\n", timeout=90,
    )  # fmt: skip
    assert "from stdin\npiped\n" in result.stdout, result.stderr
    assert result.returncode == 3, result.stderr
    wait_for(lambda: kubectl.run("get", "pod", "piped").returncode != 0, 30, "pod piped to go")


def test_run_i_gets_what_the_command_printed_before_kubectl_attached(kubectl):
    result = kubectl.run(
        "run", "early", "--rm", "-i", "--image=busybox:1.36", "--restart=Never", "--",
        "sh", "-c", "echo one; echo two", stdin="", timeout=90,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "falling back" not in result.stderr, result.stderr  # attached, not read from the log
    assert result.stdout.startswith("one\ntwo\n"), result.stdout


def test_attach_follows_a_running_process_and_leaving_keeps_it_running(kubectl):
    kubectl.ok("run", "ticker", "--image=busybox:1.36", "--", "sh", "-c",
               "i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done")  # fmt: skip
    wait_for(lambda: _running(kubectl, "ticker"), 60, "ticker to run")
    command, env = kubectl._command(("attach", "ticker"))
    attached = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [attached.stdout.readline() for _ in range(3)]
    finally:
        attached.terminate()
        attached.wait(10)
    numbers = [int(line.split()[1]) for line in lines]
    assert all(line.startswith("tick ") for line in lines), lines
    assert numbers == list(range(numbers[0], numbers[0] + 3)), "lines lost or repeated"
    assert _running(kubectl, "ticker"), "leaving stopped the process"
    again = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        later = int(again.stdout.readline().split()[1])
    finally:
        again.terminate()
        again.wait(10)
    assert later > numbers[-1], "a second attach sees the process's new output only"


def _attach_and_say(kubectl: Kubectl, pod: str, line: str, expect: str) -> str:
    """`kubectl attach -i POD`, type a line, read what the shell answers, leave."""
    command, env = kubectl._command(("attach", "-i", pod))
    attached = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        attached.stdin.write(line + "\n")
        attached.stdin.flush()
        answer = attached.stdout.readline()
        while answer and expect not in answer:
            answer = attached.stdout.readline()
        return answer
    finally:
        attached.terminate()
        attached.wait(10)


def test_a_parked_sandbox_keeps_its_shell_and_attach_wakes_it(scaled, kubectl, tmp_path):
    kubectl.ok(
        "run", "shell", "--image=busybox:1.36", "--stdin", "--leave-stdin-open", "--attach=false", "--", "sh"
    )
    wait_for(lambda: _running(kubectl, "shell"), 60, "shell to run")
    assert _attach_and_say(kubectl, "shell", "x=kept; echo set $x", "set") == "set kept\n"
    log = tmp_path / "controlplane-cp-a.log"
    wait_for(lambda: "parked the control plane of demo" in log.read_text(), 90, "demo to park", interval=1)
    # Through the web process, the relay, the parked leader: woken, the same shell answers.
    assert _attach_and_say(kubectl, "shell", "echo again $x", "again") == "again kept\n"
    status = json.loads(kubectl.ok("get", "pod", "shell", "-o", "json"))["status"]["containerStatuses"][0]
    assert status["restartCount"] == 0


def test_run_it_rm_gives_a_terminal_on_the_containers_own_shell(kubectl):
    args = ("run", "tmp", "--rm", "-it", "--image=busybox:1.36", "--restart=Never", "--", "sh")
    with terminal.shell(kubectl, *args, timeout=60) as child:
        child.sendline("echo $HOSTNAME; echo $((6*7))")
        child.expect_exact("tmp\r\n42\r\n/ # ")
        child.sendline("exit")
        child.expect_exact('pod "tmp" deleted')
        terminal.read_to_end(child)
    assert child.exitstatus == 0


def test_debug_attaches_to_an_ephemeral_container_the_leader_started(kubectl):
    kubectl.ok("run", "debugged", "--image=nginx:1.25")
    wait_for(lambda: _running(kubectl, "debugged"), 60, "debugged to run")
    args = ("debug", "debugged", "-it", "--image=busybox:1.36", "--target=debugged")
    with terminal.shell(kubectl, *args, timeout=60) as child:
        child.sendline("hostname; wget -qO- localhost | grep title")
        child.expect_exact("debugged\r\n<title>Welcome to nginx!</title>\r\n/ # ")
        child.sendline("exit")
        child.expect_exact("Session ended, the ephemeral container will not be restarted")
        terminal.read_to_end(child)
    assert child.exitstatus == 0

"""kubectl's interactive tools with the real kubectl: `run -i/-it --rm` and `attach` (pods/attach:
the container's own process, its stdin and terminal), and `kubectl cp` both ways (tar through exec)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import terminal

pytestmark = pytest.mark.kubectl

RECORDED = (
    "All commands and output from this session will be recorded in container logs, including "
    "credentials and sensitive information passed through the command prompt.\n"
)


def _wait(condition, seconds: float = 30, what: str = "") -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")


def _running(kubectl, name: str) -> bool:
    pod = json.loads(kubectl.ok("get", "pod", name, "-o", "json"))
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return bool(statuses) and all("running" in (s.get("state") or {}) for s in statuses)


def _gone(kubectl, name: str) -> bool:
    return kubectl.run("get", "pod", name).returncode != 0


def test_run_it_rm_gives_the_containers_own_shell_then_deletes_the_pod(kubectl):
    args = ("run", "tmp", "--rm", "-it", "--image=busybox:1.36", "--restart=Never", "--", "sh")
    with terminal.shell(kubectl, *args) as child:
        child.sendline("echo $HOSTNAME; echo hi > /tmp/f; cat /tmp/f")
        child.expect_exact("tmp\r\nhi\r\n/ # ")
        child.sendline("exit")
        child.expect_exact('pod "tmp" deleted')
        terminal.read_to_end(child)
    assert child.exitstatus == 0
    _wait(lambda: _gone(kubectl, "tmp"), what="pod tmp to go")


def test_run_i_rm_wget_prints_the_page(kubectl):
    kubectl.ok("create", "deployment", "attach-web", "--image=nginx:1.25")
    kubectl.ok("expose", "deployment", "attach-web", "--port=80")
    _wait(lambda: "1/1" in kubectl.ok("get", "deploy", "attach-web"), what="nginx ready")
    result = kubectl.run(
        "run", "getter", "--rm", "-i", "--image=busybox:1.36", "--restart=Never", "--",
        "wget", "-qO-", "http://attach-web", stdin="", timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "<title>Welcome to nginx!</title>" in result.stdout
    assert result.stdout.rstrip().endswith('pod "getter" deleted')


def test_run_i_pipes_stdin_to_the_containers_shell_and_returns_its_exit_code(kubectl):
    result = kubectl.run(
        "run", "piped", "--rm", "-i", "--image=busybox:1.36", "--restart=Never", "--", "sh",
        stdin="echo from stdin\nhostname\nexit 3\n", timeout=60,
    )  # fmt: skip
    assert "from stdin\npiped\n" in result.stdout
    assert result.returncode == 3
    assert 'pod "piped" deleted' in result.stdout
    assert "pod default/piped terminated (Error)" in result.stderr


SHELL_POD = """
apiVersion: v1
kind: Pod
metadata: {name: %(name)s}
spec:
  containers:
  - name: main
    image: busybox:1.36
    command: [sh]
    stdin: true
    tty: %(tty)s
"""


def test_attach_it_reaches_a_running_shell_and_says_how_to_come_back(kubectl):
    pexpect = pytest.importorskip("pexpect")
    kubectl.ok("apply", "-f", "-", stdin=SHELL_POD % {"name": "console", "tty": "true"})
    _wait(lambda: _running(kubectl, "console"), what="console running")
    command, env = kubectl._command(("attach", "console", "-c", "main", "-it"))
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=30)
    try:
        child.expect_exact("If you don't see a command prompt, try pressing enter.")
        child.send("\r")
        child.expect_exact("/ # ")
        child.sendline("echo attached to $HOSTNAME")
        child.expect_exact("attached to console\r\n/ # ")
        child.sendline("exit")
        child.expect_exact(
            "Session ended, resume using 'kubectl attach console -c main -i -t' command "
            "when the pod is running"
        )
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    # `exit` ended the container's main process: it restarts (restartPolicy Always), the run is --previous
    _wait(
        lambda: "attached to console" in kubectl.run("logs", "console", "--previous").stdout,
        what="--previous",
    )


def test_attach_i_feeds_a_shell_reading_stdin_without_a_terminal(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=SHELL_POD % {"name": "scripted", "tty": "false"})
    _wait(lambda: _running(kubectl, "scripted"), what="scripted running")
    command, env = kubectl._command(("attach", "scripted", "-i"))
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        process.stdin.write("echo got one\nhostname\n")
        process.stdin.flush()
        assert process.stdout.readline() == "got one\n"
        assert process.stdout.readline() == "scripted\n"
    finally:
        process.terminate()  # stdinOnce is false: the stream stays open, as on a real cluster
        process.communicate(timeout=10)
    _wait(lambda: "got one" in kubectl.ok("logs", "scripted"), what="its log")
    assert _running(kubectl, "scripted")  # leaving detached: the shell runs on


def test_attach_without_stdin_streams_output_and_tty_is_refused_as_kubectl_says(kubectl):
    script = "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"
    kubectl.ok("run", "ticking", "--image=busybox:1.36", "--", "sh", "-c", script)
    _wait(lambda: _running(kubectl, "ticking"), what="ticking running")
    command, env = kubectl._command(("attach", "ticking", "-c", "ticking", "-it"))
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout.readline().startswith("tick ")  # from now on, as containerd gives it
        assert process.stdout.readline().startswith("tick ")
    finally:
        process.terminate()
        _out, err = process.communicate(timeout=10)
    assert err.startswith("error: Unable to use a TTY - container ticking did not allocate one\n")
    missing = kubectl.run("attach", "ticking", "-c", "nope")
    assert missing.returncode == 1
    assert "container nope not found in pod ticking" in missing.stderr


def test_attach_to_a_completed_pod(kubectl):
    kubectl.ok("run", "finished", "--image=busybox:1.36", "--restart=Never", "--", "true")
    _wait(
        lambda: (
            json.loads(kubectl.ok("get", "pod", "finished", "-o", "json"))["status"].get("phase")
            == "Succeeded"
        ),
        what="finished to succeed",
    )
    result = kubectl.run("attach", "finished")
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == "error: cannot attach a container in a completed pod; current phase is Succeeded"
    )


def test_cp_round_trips_a_file_byte_for_byte(kubectl, tmp_path: Path):
    kubectl.ok("run", "cp-web", "--image=nginx:1.25")
    _wait(lambda: _running(kubectl, "cp-web"), what="cp-web running")
    source = tmp_path / "notes.bin"
    payload = bytes(range(256)) * 4 + "héllo 你好\n".encode()
    source.write_bytes(payload)
    result = kubectl.run("cp", str(source), "cp-web:/tmp/notes.bin")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    back = tmp_path / "back.bin"
    result = kubectl.run("cp", "cp-web:/tmp/notes.bin", str(back))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "tar: Removing leading `/' from member names\n"
    assert back.read_bytes() == payload
    kubectl.ok("cp", str(source), "cp-web:/usr/share/nginx/html")  # into a directory: its own name
    assert (
        kubectl.ok("exec", "cp-web", "--", "ls", "/usr/share/nginx/html")
        == "50x.html\nindex.html\nnotes.bin\n"
    )


def test_cp_from_busybox_and_a_missing_file(kubectl, tmp_path: Path):
    kubectl.ok("run", "cp-bb", "--image=busybox:1.36", "--", "sleep", "3600")
    _wait(lambda: _running(kubectl, "cp-bb"), what="cp-bb running")
    kubectl.ok(
        "exec",
        "cp-bb",
        "--",
        "sh",
        "-c",
        "mkdir -p /data/sub && echo one > /data/a && echo two > /data/sub/b",
    )
    result = kubectl.run("cp", "cp-bb:/data", str(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "tar: removing leading '/' from member names\n"
    assert (tmp_path / "data" / "a").read_text() == "one\n"
    assert (tmp_path / "data" / "sub" / "b").read_text() == "two\n"
    missing = kubectl.run("cp", "cp-bb:/nope", str(tmp_path / "x"))  # its exit status is a race in kubectl
    assert "tar: /nope: No such file or directory" in missing.stdout + missing.stderr
    assert not os.path.exists(tmp_path / "x")


def test_debug_opens_a_shell_in_an_ephemeral_container_beside_the_target(kubectl):
    pexpect = pytest.importorskip("pexpect")
    kubectl.ok("run", "debugged", "--image=nginx:1.25")
    _wait(lambda: _running(kubectl, "debugged"), what="debugged running")
    command, env = kubectl._command(("debug", "debugged", "-it", "--image=busybox:1.36", "--target=debugged"))
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=30)
    try:
        child.expect_exact('Targeting container "debugged".')
        child.expect(r"Defaulting debug container name to (debugger-[a-z0-9]{5})\.")
        name = child.match.group(1)
        child.expect_exact("If you don't see a command prompt, try pressing enter.")
        child.send("\r")
        child.expect_exact("/ # ")
        child.sendline("hostname; wget -qO- localhost | grep title")  # the pod's network: nginx
        child.expect_exact("debugged\r\n<title>Welcome to nginx!</title>\r\n/ # ")
        child.sendline("ps")  # the target's process namespace: nginx's processes, then its own
        child.expect_exact("    1 root      0:00 nginx: master process nginx -g daemon off;\r\n")
        child.expect_exact("/ # ")
        child.sendline("exit")
        child.expect_exact(
            "Session ended, the ephemeral container will not be restarted but may be reattached using "
            f"'kubectl attach debugged -c {name} -i -t' if it is still running"
        )
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    pod = json.loads(kubectl.ok("get", "pod", "debugged", "-o", "json"))
    assert pod["spec"]["ephemeralContainers"][0]["targetContainerName"] == "debugged"
    _wait(
        lambda: (
            "terminated"
            in json.loads(kubectl.ok("get", "pod", "debugged", "-o", "json"))["status"][
                "ephemeralContainerStatuses"
            ][0]["state"]
        ),
        what="the debugger to end",
    )
    status = json.loads(kubectl.ok("get", "pod", "debugged", "-o", "json"))["status"]
    assert status["ephemeralContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    assert [s["name"] for s in status["containerStatuses"]] == ["debugged"]
    assert kubectl.ok("get", "pod", "debugged", "--no-headers").split()[1:3] == ["1/1", "Running"]
    assert "/ # exit" in kubectl.ok("logs", "debugged", "-c", name)


def test_debug_node_runs_a_host_pod_with_the_nodes_root_at_host(kubectl):
    out = kubectl.ok(
        "debug", "node/node1", "--image=busybox:1.36", "--", "sh", "-c",
        "hostname; cat /host/etc/hostname; grep PRETTY /host/etc/os-release",
    )  # fmt: skip
    assert out.startswith("Creating debugging pod node-debugger-node1-")
    name = out.split()[3]
    _wait(
        lambda: (
            json.loads(kubectl.ok("get", "pod", name, "-o", "json"))["status"].get("phase") == "Succeeded"
        ),
        what="the node debugger to end",
    )
    assert kubectl.ok("logs", name) == 'node1\nnode1\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n'
    pod = json.loads(kubectl.ok("get", "pod", name, "-o", "json"))
    assert pod["spec"]["hostNetwork"] and pod["spec"]["hostPID"]
    assert pod["status"]["podIP"] == pod["status"]["hostIP"]


def test_debug_refused_ephemeral_fields_print_kube_apiservers_words(kubectl, tmp_path: Path):
    kubectl.ok("run", "debug-bad", "--image=nginx:1.25")
    _wait(lambda: _running(kubectl, "debug-bad"), what="debug-bad running")
    result = kubectl.run("debug", "debug-bad", "--image=busybox:1.36", "--target=nope", "--", "true")
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        'Pod "debug-bad" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "nope"'
    )

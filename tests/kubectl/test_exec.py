"""`kubectl exec` with the real kubectl: the WebSocket remote-command protocol and the image's shell."""

from __future__ import annotations

import json
import time

import pytest

pytestmark = pytest.mark.kubectl

POD = """
apiVersion: v1
kind: Pod
metadata: {name: %(name)s}
spec:
  %(extra)s
  containers:
  - name: %(container)s
    image: %(image)s
"""


def _create(
    kubectl, name: str, image: str, container: str = "main", extra: str = "", command: str = ""
) -> None:
    text = POD % {"name": name, "image": image, "container": container, "extra": extra or "{}"}
    if not extra:
        text = text.replace("  {}\n", "")
    if command:
        text += f"    command: {command}\n"
    kubectl.ok("apply", "-f", "-", stdin=text)


def _phase(kubectl, name: str) -> str:
    pod = json.loads(kubectl.ok("get", "pod", name, "-o", "json"))
    return (pod.get("status") or {}).get("phase", "")


def _wait_running(kubectl, name: str, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        pod = json.loads(kubectl.ok("get", "pod", name, "-o", "json"))
        statuses = (pod.get("status") or {}).get("containerStatuses") or []
        if statuses and all("running" in (s.get("state") or {}) for s in statuses):
            return
        time.sleep(0.3)
    pytest.fail(f"pod {name} did not start running")


@pytest.fixture(scope="module")
def nginx(kubectl):
    _create(kubectl, "exec-web", "nginx:1.25", container="nginx")
    _wait_running(kubectl, "exec-web")
    return "exec-web"


def test_hostname_prints_the_pod_name_with_the_generated_kubeconfig(kubectl, nginx):
    assert kubectl.kubeconfig is not None  # KUBECONFIG from `manage.py kubeconfig`: TLS and a token
    result = kubectl.run("exec", nginx, "--", "hostname")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{nginx}\n"


def test_anonymous_callers_get_kube_apiservers_403(anonymous_kubectl, nginx):
    result = anonymous_kubectl.run("exec", nginx, "--", "hostname")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f'Error from server (Forbidden): pods "{nginx}" is forbidden: User "system:anonymous" cannot create '
        'resource "pods/exec" in API group "" in the namespace "default"'
    )


def test_cat_prints_nginx_welcome_page(kubectl, nginx):
    out = kubectl.ok("exec", nginx, "--", "cat", "/usr/share/nginx/html/index.html")
    assert out.startswith("<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>")
    assert "<p><em>Thank you for using nginx.</em></p>" in out


def test_sh_c_exits_with_the_scripts_status(kubectl, nginx):
    result = kubectl.run("exec", "-i", nginx, "--", "sh", "-c", "echo $HOSTNAME; exit 3", stdin="")
    assert result.returncode == 3
    assert result.stdout == f"{nginx}\n"
    assert result.stderr.strip() == "command terminated with exit code 3"


def test_unknown_command_is_not_found_with_127(kubectl, nginx):
    result = kubectl.run("exec", nginx, "--", "nosuchcmd")
    assert result.returncode == 127
    assert '"nosuchcmd": executable file not found in $PATH' in result.stdout
    assert "command terminated with exit code 127" in result.stderr
    shell = kubectl.run("exec", nginx, "--", "bash", "-c", "nosuchcmd")
    assert shell.returncode == 127
    assert "bash: nosuchcmd: command not found" in shell.stderr


def test_a_relative_program_that_is_not_there_answers_at_once(kubectl, nginx):
    started = time.monotonic()
    result = kubectl.run("exec", nginx, "--", "./hello.sh", timeout=20)
    assert time.monotonic() - started < 10
    assert result.returncode == 127
    assert result.stdout == (
        "OCI runtime exec failed: exec failed: unable to start container process: "
        'exec: "./hello.sh": stat ./hello.sh: no such file or directory: unknown\n'
    )
    assert "command terminated with exit code 127" in result.stderr


def test_stdin_is_piped_to_the_command(kubectl, nginx):
    result = kubectl.run("exec", "-i", nginx, "--", "sh", stdin="cd /etc/nginx\npwd\nls conf.d | wc -l\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "/etc/nginx\n1\n"


def test_files_written_stay_in_the_container_and_nginx_serves_them(kubectl, nginx):
    kubectl.ok("exec", nginx, "--", "sh", "-c", "echo hello > /usr/share/nginx/html/hello.html")
    assert kubectl.ok("exec", nginx, "--", "cat", "/usr/share/nginx/html/hello.html") == "hello\n"
    assert kubectl.ok("exec", nginx, "--", "curl", "-s", "localhost/hello.html") == "hello\n"


def test_busybox_has_no_bash(kubectl):
    _create(kubectl, "exec-bb", "busybox:1.36", command="[sleep, '3600']")
    _wait_running(kubectl, "exec-bb")
    result = kubectl.run("exec", "exec-bb", "--", "bash")
    assert result.returncode == 127
    assert 'exec: "bash": executable file not found in $PATH' in result.stdout
    shell = kubectl.run("exec", "exec-bb", "--", "sh", "-c", "foo")
    assert shell.returncode == 127 and shell.stderr.startswith("sh: foo: not found\n")


def test_interactive_bash_through_a_pseudo_terminal(kubectl, nginx):
    pexpect = pytest.importorskip("pexpect")
    command, env = kubectl._command(("exec", "-it", nginx, "--", "bash"))
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=15)
    try:
        child.expect_exact(f"root@{nginx}:/# ")
        child.sendline("hostname")
        child.expect_exact(f"hostname\r\n{nginx}\r\n")
        child.expect_exact(f"root@{nginx}:/# ")
        child.send("echo abcd\x7f\x7fxy\r")  # backspace edits the line on the server
        child.expect_exact("abxy\r\n")
        child.send("this line is dropped\x03")
        child.expect_exact(f"^C\r\nroot@{nginx}:/# ")
        child.sendline("cd /etc/nginx")
        child.expect_exact(f"root@{nginx}:/etc/nginx# ")
        child.sendline("exit")
        child.expect_exact("exit\r\n")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_exec_into_a_pending_pod_is_refused_as_kubectl_reports_it(kubectl):
    _create(kubectl, "exec-pending", "nginx:1.25", extra="nodeSelector: {disk: none-has-it}")
    result = kubectl.run("exec", "exec-pending", "--", "ls")
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == "Error from server (BadRequest): pod exec-pending does not have a host assigned"
    )


def test_exec_into_a_container_that_is_not_running(kubectl):
    _create(kubectl, "exec-pull", "nginx:no-such-tag")
    deadline = time.time() + 20
    while time.time() < deadline and "Pull" not in kubectl.ok("get", "pod", "exec-pull"):
        time.sleep(0.3)
    result = kubectl.run("exec", "exec-pull", "--", "ls")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'error: Internal error occurred: unable to upgrade connection: container not found ("main")'
    )


def test_missing_container_and_completed_pod(kubectl, nginx):
    result = kubectl.run("exec", nginx, "-c", "nope", "--", "ls")
    assert (
        result.stderr.strip()
        == f"Error from server (BadRequest): container nope is not valid for pod {nginx}"
    )
    _create(kubectl, "exec-done", "busybox:1.36", extra="restartPolicy: Never")
    deadline = time.time() + 20
    while time.time() < deadline and _phase(kubectl, "exec-done") != "Succeeded":
        time.sleep(0.3)
    result = kubectl.run("exec", "exec-done", "--", "ls")
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        == "error: cannot exec into a container in a completed pod; current phase is Succeeded"
    )


def test_bench_exec_prints_its_figures(kubectl, nginx, monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    monkeypatch.setenv("HOME", str(kubectl.home))
    out = StringIO()
    call_command("bench_exec", kubeconfig=str(kubectl.kubeconfig), pod=nginx, runs=3, kubectl=kubectl.binary,
                 stdout=out)  # fmt: skip
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("kubectl exec POD -- hostname (process start to exit): n=3 p50=")
    assert lines[1].startswith("interactive line -> next prompt (kubectl exec -it ... bash): n=3 p50=")

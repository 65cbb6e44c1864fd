"""`kubectl port-forward` with the real kubectl 1.33: SPDY/3.1 tunnelled in a WebSocket
(PortForwardWebsockets) to the simulated servers of the pod, and back to 127.0.0.1."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest

pytestmark = pytest.mark.kubectl

WEB = """
apiVersion: v1
kind: Pod
metadata: {name: pf-web, labels: {app: pf-web}}
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: pf-svc}
spec:
  selector: {app: pf-web}
  ports: [{port: 8080, targetPort: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pf-deploy}
spec:
  replicas: 1
  selector: {matchLabels: {app: pf-httpd}}
  template:
    metadata: {labels: {app: pf-httpd}}
    spec:
      containers:
      - name: httpd
        image: httpd:2.4
"""


def _running(kubectl, selector: str, seconds: float = 40) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        pods = json.loads(kubectl.ok("get", "pods", "-l", selector, "-o", "json"))["items"]
        if pods and all(
            all(
                "running" in (s.get("state") or {})
                for s in (p.get("status") or {}).get("containerStatuses") or [{}]
            )
            for p in pods
        ):
            return
        time.sleep(0.3)
    pytest.fail(f"pods {selector} did not start running")


@pytest.fixture(scope="module")
def web(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=WEB)
    _running(kubectl, "app=pf-web")
    _running(kubectl, "app=pf-httpd")
    return "pf-web"


def _forward(kubectl, *args: str) -> subprocess.Popen:
    """kubectl port-forward, once it says it listens."""
    command, env = kubectl._command(("port-forward", *args))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = process.stdout.readline()
    if not line.startswith("Forwarding from 127.0.0.1:"):
        process.kill()
        pytest.fail(f"kubectl port-forward did not start: {line!r} {process.stderr.read()}")
    return process


def _stop(process: subprocess.Popen) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)  # Ctrl-C
    out, err = process.communicate(timeout=10)
    return out, err


def _get(port: int, path: str = "/") -> tuple[int, str, dict]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return response.status, response.read().decode(), dict(response.headers)


def _open_sessions(kubesim) -> int:
    code = "from cluster import execsessions\nprint(execsessions.open_count())\n"
    return int(kubesim.shell(code).strip().splitlines()[-1])


def test_pod_port_80_serves_nginxs_welcome_page_on_127_0_0_1_and_nginx_logs_the_request(kubectl, web):
    process = _forward(kubectl, "pod/pf-web", "21850:80")
    try:
        status, body, headers = _get(21850)
        assert status == 200
        assert body.startswith("<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>")
        assert headers["Server"].startswith("nginx/1.25")
        assert _get(21850)[0] == 200  # a second connection on the same session
        with pytest.raises(urllib.error.HTTPError) as missing:
            _get(21850, "/nope")
        assert missing.value.code == 404
    finally:
        out, _err = _stop(process)
    assert "Handling connection for 21850" in out
    log = kubectl.ok("logs", "pf-web")
    size = len(body.encode())
    agent = f"Python-urllib/{'.'.join(map(str, __import__('sys').version_info[:2]))}"
    access = re.compile(
        r'^127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET / HTTP/1\.1" '
        + rf'200 {size} "-" "{re.escape(agent)}" "-"$',
        re.M,
    )
    assert len(access.findall(log)) == 2, log
    assert '"GET /nope HTTP/1.1" 404 ' in log
    assert 'open() "/usr/share/nginx/html/nope" failed (2: No such file or directory)' in log


def test_svc_and_deploy_forms_reach_a_pod_behind_them(kubectl, web):
    process = _forward(kubectl, "svc/pf-svc", "21851:8080")  # the Service's port -> targetPort 80
    try:
        assert "Welcome to nginx!" in _get(21851)[1]
    finally:
        _stop(process)
    process = _forward(kubectl, "deploy/pf-deploy", "21852:80")
    try:
        status, body, headers = _get(21852)
        assert (status, body) == (200, "<html><body><h1>It works!</h1></body></html>\n")
        assert headers["Server"].startswith("Apache/2.4")
    finally:
        _stop(process)
    pod = kubectl.ok("get", "pods", "-l", "app=pf-httpd", "-o", "jsonpath={.items[0].metadata.name}")
    assert re.search(r'^127\.0\.0\.1 - - \[.+\] "GET / HTTP/1\.1" 200 45$', kubectl.ok("logs", pod), re.M)


def test_a_closed_port_prints_the_kubelets_error_and_kubectl_loses_the_connection(kubectl, web):
    process = _forward(kubectl, "pod/pf-web", "21853:81")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        _get(21853)
    out, err = process.communicate(timeout=15)
    assert process.returncode == 1
    assert "Handling connection for 21853" in out
    sandbox = r"[0-9a-f]{64}"
    words = (
        r'"Unhandled Error" err="an error occurred forwarding 21853 -> 81: error forwarding port 81 to pod '
        + sandbox
        + r", uid : failed to execute portforward in network namespace "
        + r'\\"/var/run/netns/cni-[-0-9a-f]{36}\\": '
        + r"failed to connect to localhost:81 inside namespace \\\""
        + sandbox
        + r'\\", '
        + re.escape(
            "IPv4: dial tcp4 127.0.0.1:81: connect: connection refused "
            'IPv6 dial tcp6 [::1]:81: connect: connection refused "'
        )
    )
    assert re.search(words, err), err
    assert err.rstrip().endswith("error: lost connection to pod")


def test_stopping_kubectl_releases_the_session_server_side(kubectl, kubesim, web):
    before = _open_sessions(kubesim)
    process = _forward(kubectl, "pod/pf-web", "21854:80")
    try:
        assert _get(21854)[0] == 200
        assert _open_sessions(kubesim) == before + 1
    finally:
        _stop(process)
    deadline = time.time() + 10
    while _open_sessions(kubesim) > before and time.time() < deadline:
        time.sleep(0.3)
    assert _open_sessions(kubesim) == before


def test_anonymous_callers_get_kube_apiservers_403(anonymous_kubectl, web):
    result = anonymous_kubectl.run("port-forward", "pod/pf-web", "21855:80", timeout=20)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'error: error upgrading connection: pods "pf-web" is forbidden: User "system:anonymous" cannot '
        'create resource "pods/portforward" in API group "" in the namespace "default"'
    )

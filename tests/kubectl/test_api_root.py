"""The real kubectl with a kubeconfig whose server has no path, as a real cluster's: absolute paths
(`get --raw`, `kubectl proxy`) reach the API server's root, and the token says which cluster."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import yaml

from tests.kubectl.conftest import Kubectl, free_api_port

pytestmark = pytest.mark.kubectl

SANDBOX = """
from django.contrib.auth.models import User
from cluster.models import Cluster
owner = User.objects.create_user("student-root")
Cluster.objects.create(name="lab-rootaddr", public=False, owner=owner)
print("lab-rootaddr")
"""


@pytest.fixture(scope="module")
def sandbox(kubesim) -> str:
    """A student's sandbox (no nodes: nothing runs there) on the shared server."""
    return kubesim.shell(SANDBOX).strip().splitlines()[-1]


def test_the_teachers_kubeconfig_has_no_path_in_its_server(kubesim, kubectl):
    config = yaml.safe_load(kubectl.kubeconfig.read_text())
    assert [c["cluster"]["server"] for c in config["clusters"]] == [f"https://127.0.0.1:{kubesim.api_port}"]
    assert config["current-context"] == "kubesim-demo"


def test_get_raw_root_lists_the_served_paths(kubectl):
    paths = json.loads(kubectl.ok("get", "--raw", "/"))["paths"]
    served = {"/api", "/api/v1", "/apis", "/apis/apps/v1", "/healthz", "/livez", "/readyz", "/version"}
    assert served <= set(paths)


def test_get_raw_healthz_readyz_livez(kubectl):
    assert kubectl.ok("get", "--raw", "/healthz") == "ok"
    assert kubectl.ok("get", "--raw", "/livez") == "ok"
    verbose = kubectl.ok("get", "--raw", "/readyz?verbose")
    assert verbose.splitlines() == [
        "[+]ping ok",
        "[+]etcd ok",
        "[+]etcd-readiness ok",
        "readyz check passed",
    ]
    assert kubectl.ok("get", "--raw", "/readyz/etcd") == "ok"


def test_get_raw_of_a_pod_list_and_the_version_at_the_root(kubectl):
    pods = json.loads(kubectl.ok("get", "--raw", "/api/v1/namespaces/default/pods"))
    assert pods["kind"] == "PodList" and pods["apiVersion"] == "v1"
    assert json.loads(kubectl.ok("get", "--raw", "/version"))["gitVersion"] == "v1.33.1"
    assert "apps" in kubectl.ok("get", "--raw", "/apis")


def test_a_path_the_api_server_does_not_serve_is_notfound_in_kubectls_words(kubectl):
    missing = kubectl.run("get", "--raw", "/nosuch")
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == "Error from server (NotFound): the server could not find the requested resource"
    )


def test_kubectl_proxy_serves_the_api_servers_root(kubectl):
    port = free_api_port()
    command, env = kubectl._command(("proxy", f"--port={port}"))
    proxy = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        nodes = None
        deadline = time.monotonic() + 15
        while nodes is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/nodes", timeout=5) as answer:
                    nodes = json.loads(answer.read())
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        assert nodes is not None and nodes["kind"] == "NodeList"
        assert {"node1", "node2"} <= {n["metadata"]["name"] for n in nodes["items"]}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            assert answer.read() == b"ok"
    finally:
        proxy.terminate()
        _, stderr = proxy.communicate(timeout=10)
    assert "server path" not in stderr  # kubectl warns of a server path (--append-server-path)


def test_a_kubeconfig_in_the_older_path_form_still_works(kubesim, kubectl):
    config = yaml.safe_load(kubectl.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] += "/clusters/demo"
    older = kubesim.tmp / "path-form.kubeconfig"
    older.write_text(yaml.safe_dump(config))
    old = Kubectl(kubectl.binary, kubectl.server, kubectl.home, older)
    assert "node1" in old.ok("get", "nodes")
    assert old.ok("get", "--raw", "/clusters/demo/healthz") == "ok"


def test_a_students_kubeconfig_drives_their_sandbox_at_the_same_address(kubesim, kubectl, sandbox):
    path = kubesim.kubeconfig(sandbox, "root-student")
    config = yaml.safe_load(path.read_text())
    assert config["clusters"][0]["cluster"]["server"] == f"https://127.0.0.1:{kubesim.api_port}"
    student = Kubectl(kubectl.binary, kubectl.server, kubectl.home, path)
    assert student.ok("get", "--raw", "/healthz") == "ok"
    if "mine" not in student.ok("get", "configmaps"):
        student.ok("create", "configmap", "mine", "--from-literal=a=1")
    assert "mine" in student.ok("get", "configmaps")
    assert "mine" not in kubectl.ok("get", "configmaps")  # the teacher's demo, same address
    who = student.ok("auth", "whoami", "-o", "json")
    assert json.loads(who)["status"]["userInfo"]["username"] == "student-root"


def test_the_teachers_kubeconfig_has_a_context_per_cluster_at_one_address(kubesim, kubectl, sandbox):
    teacher = Kubectl(
        kubectl.binary, kubectl.server, kubectl.home, kubesim.kubeconfig("demo", "root-teacher")
    )
    contexts = teacher.ok("config", "get-contexts", "-o", "name").split()
    assert {"kubesim-demo", f"kubesim-{sandbox}"} <= set(contexts)
    teacher.ok("--context", f"kubesim-{sandbox}", "create", "configmap", "teachers", "--from-literal=b=2")
    assert "teachers" in teacher.ok("--context", f"kubesim-{sandbox}", "get", "configmaps")
    assert "teachers" not in teacher.ok("get", "configmaps")  # current: the demo


def test_get_raw_metrics_counts_kubectls_own_requests(kubectl):
    kubectl.ok("get", "pods")
    text = kubectl.ok("get", "--raw", "/metrics")
    assert "# TYPE apiserver_request_total counter" in text
    listed = [
        line
        for line in text.splitlines()
        if line.startswith("apiserver_request_total{")
        and 'resource="pods"' in line
        and 'verb="LIST"' in line
        and 'code="200"' in line
    ]
    assert listed and int(listed[0].rsplit(" ", 1)[1]) >= 1
    assert "apiserver_request_duration_seconds_bucket{" in text


def test_get_raw_metrics_counts_the_schedulers_attempts(kubectl):
    kubectl.ok("run", "metrics-pod", "--image=nginx")
    deadline = time.monotonic() + 30
    while not kubectl.ok("get", "pod", "metrics-pod", "-o", "jsonpath={.spec.nodeName}"):
        assert time.monotonic() < deadline, "the pod was not scheduled"
        time.sleep(0.3)
    text = kubectl.ok("get", "--raw", "/metrics")
    assert "# TYPE scheduler_schedule_attempts_total counter" in text
    scheduled = [
        line
        for line in text.splitlines()
        if line.startswith(
            'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}'
        )
    ]
    assert scheduled and int(scheduled[0].rsplit(" ", 1)[1]) >= 1
    kubectl.ok("delete", "pod", "metrics-pod", "--wait=false")

"""The course's commands, verbatim, with the real kubectl and nothing but KUBECONFIG, over TLS:
against the demo (the teacher's kubeconfig) and against a student's sandbox (the student's)."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED_EXAMPLES
from tests.kubectl.conftest import Kubectl, _kubectl_binary, live_server

pytestmark = pytest.mark.kubectl

# The course's command list (exec is another matter: it needs a streaming protocol).
COMMANDS = [
    "kubectl apply -f pod-nodename.yaml",
    "kubectl get pods -o wide",
    "kubectl label --help",
    "kubectl get node",
    "kubectl label nodes node1 zz=cxk",
    "kubectl label nodes node2 cc=cxk",
    "kubectl get nodes --show-labels",
    "kubectl apply -f pod-nodeselector.yaml",
    "kubectl get pods -o wide",
    "kubectl describe pod pod-example",
    "kubectl logs pod-example",
    "kubectl delete -f pod-nodeselector.yaml",
]
# Both files name their pod pod-example: applying the second over the first changes a pod's spec,
# which kube-apiserver refuses in these words (so does KubeSim).
IMMUTABLE = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
SANDBOX = """
from django.contrib.auth import get_user_model
from labs import sandbox
from labs.catalog import import_bundled, lab_of
from labs.models import ClassSession, LabDefinition
import_bundled()
teacher, _ = get_user_model().objects.get_or_create(username="teacher", defaults={"is_staff": True})
session = ClassSession.objects.create(lab=LabDefinition.objects.get(slug="nodeselector"), teacher=teacher)
print(sandbox.join(session, "Alice", lab_of(session.lab)).sandbox.name)
"""


@pytest.fixture(scope="module")
def course_server(tmp_path_factory):
    _kubectl_binary()
    with live_server(tmp_path_factory.mktemp("course"), seed=None) as server:
        yield server


def wait_running(kubectl: Kubectl, pod: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        phase = kubectl.run("get", "pod", pod, "-o", "jsonpath={.status.phase}").stdout
        if phase == "Running":
            return
        time.sleep(0.3)
    raise AssertionError(f"{pod} is not Running after {timeout}s")


def run_course(kubectl: Kubectl) -> list[str]:
    outputs = []
    for line in COMMANDS:
        args = shlex.split(line)[1:]
        if args[0] == "logs":
            wait_running(kubectl, "pod-example")
        result = kubectl.run(*args)
        if line == "kubectl apply -f pod-nodeselector.yaml":
            assert result.returncode == 1 and IMMUTABLE in result.stderr, result.stderr
        else:
            assert result.returncode == 0, f"{line} failed:\n{result.stderr}"
        assert "x509" not in result.stderr and "certificate" not in result.stderr
        outputs.append(result.stdout)
    return outputs


def course_kubectl(server, kubeconfig: Path, name: str) -> Kubectl:
    home = server.tmp / f"home-{name}"
    home.mkdir(exist_ok=True)
    return Kubectl(_kubectl_binary(), "", home, kubeconfig, cwd=SHARED_EXAMPLES)


def test_the_kubeconfig_points_at_the_tls_api_port_with_the_ca_and_a_token(course_server):
    import yaml

    config = yaml.safe_load(course_server.kubeconfig("demo", "demo").read_text())
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == f"https://127.0.0.1:{course_server.api_port}"  # no path: the token says
    assert cluster["certificate-authority-data"] and "insecure-skip-tls-verify" not in cluster
    assert config["users"][0]["user"]["token"]


def test_the_course_commands_run_against_the_demo(course_server):
    kubectl = course_kubectl(course_server, course_server.kubeconfig("demo", "demo"), "demo")
    outputs = run_course(kubectl)
    assert "pod-example" in outputs[1] and "node1" in outputs[1]
    assert "zz=cxk" in outputs[6] and "cc=cxk" in outputs[6]
    assert "Name:             pod-example" in outputs[9]


def test_the_course_commands_run_against_a_students_sandbox(course_server):
    name = course_server.shell(SANDBOX).strip().splitlines()[-1]
    assert name.startswith("lab-")
    kubeconfig = course_server.kubeconfig(name, "student")
    kubectl = course_kubectl(course_server, kubeconfig, "student")
    deadline = time.monotonic() + 30  # the server's control plane takes the new sandbox's lease
    while "node1" not in kubectl.run("get", "nodes").stdout and time.monotonic() < deadline:
        time.sleep(0.5)
    outputs = run_course(kubectl)
    assert "pod-example" in outputs[1]
    # The student's token is the sandbox's: the demo (named by the path form) does not let it write.
    address = f"https://127.0.0.1:{course_server.api_port}"
    demo = kubeconfig.read_text().replace(f"server: {address}", f"server: {address}/clusters/demo")
    other = course_server.tmp / "student-at-demo.kubeconfig"
    other.write_text(demo)
    elsewhere = Kubectl(_kubectl_binary(), "", kubectl.home, other, cwd=SHARED_EXAMPLES)
    refused = elsewhere.run("label", "nodes", "node1", "x=y")
    assert refused.returncode == 1
    assert 'nodes "node1" is forbidden: User "student-' in refused.stderr
    assert 'cannot patch resource "nodes" in API group "" at the cluster scope' in refused.stderr


def test_anonymous_kubectl_over_plain_http_reads_and_its_writes_are_403(course_server):
    home = course_server.tmp / "home-anonymous"
    home.mkdir(exist_ok=True)
    kubectl = Kubectl(_kubectl_binary(), f"{course_server.http}/clusters/demo", home, cwd=SHARED_EXAMPLES)
    assert "node1" in kubectl.run("get", "nodes").stdout
    created = kubectl.run("run", "x", "--image=nginx")
    assert created.returncode == 1
    assert created.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "system:anonymous" cannot create '
        'resource "pods" in API group "" in the namespace "default"'
    )
    deleted = kubectl.run("delete", "node", "node2")
    assert deleted.stderr.strip() == (
        'Error from server (Forbidden): nodes "node2" is forbidden: User "system:anonymous" cannot '
        'delete resource "nodes" in API group "" at the cluster scope'
    )
    assert "node2" in kubectl.run("get", "nodes").stdout


def test_serve_prints_the_teachers_link_and_the_export_line_and_the_kubeconfig_works(course_server):
    log = (course_server.tmp / "serve.log").read_text()
    link = next(line for line in log.splitlines() if line.startswith("Teacher: open "))
    assert link.startswith(f"Teacher: open {course_server.http}/presenter/?token=")
    export = next(line for line in log.splitlines() if line.startswith("kubectl: export KUBECONFIG="))
    path = Path(export.removeprefix("kubectl: export KUBECONFIG="))
    assert path.name == "demo.kubeconfig" and path.parent == Path(course_server.env["KUBESIM_STATE_DIR"])
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    kubectl = course_kubectl(course_server, path, "export")
    assert "node1" in kubectl.run("get", "nodes").stdout
    labeled = kubectl.run("label", "nodes", "master", "from=export")
    assert labeled.returncode == 0 and labeled.stdout.strip() == "node/master labeled", labeled.stderr

"""kubectl's typed clients send protobuf bodies: create deployment/namespace, scale, drain's deletes,
and `auth can-i` / `auth whoami` (self-subject reviews answered by cluster.auth.access)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kubectl.conftest import Kubectl
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl


def pods_of(kubectl, selector: str) -> list[dict]:
    return json.loads(kubectl.ok("get", "pods", "-l", selector, "-o", "json"))["items"]


def test_create_deployment_scale_and_delete(kubectl):
    out = kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "deployment.apps/web created\n"
    assert out.stderr == ""
    deployment = json.loads(kubectl.ok("get", "deployment", "web", "-o", "json"))
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    # Defaults applied as for a JSON body: the strategy kubectl left empty is the API's default.
    assert deployment["spec"]["strategy"]["type"] == "RollingUpdate"
    # Its ReplicaSet's pods (other tests' pods may carry app=web too).
    mine = "app=web,pod-template-hash"
    assert wait_for(lambda: len(pods_of(kubectl, mine)) == 2)

    assert kubectl.ok("scale", "deployment", "web", "--replicas=3") == "deployment.apps/web scaled\n"
    scaled = kubectl.ok("scale", "deployment", "web", "--current-replicas=3", "--replicas=1")
    assert scaled == "deployment.apps/web scaled\n"
    assert json.loads(kubectl.ok("get", "deployment", "web", "-o", "json"))["spec"]["replicas"] == 1

    assert kubectl.ok("delete", "deployment", "web") == 'deployment.apps "web" deleted\n'
    assert "NotFound" in kubectl.run("get", "deployment", "web").stderr


def test_create_namespace_and_a_deployment_in_it(kubectl):
    assert kubectl.ok("create", "namespace", "pb-team") == "namespace/pb-team created\n"
    out = kubectl.ok("create", "deployment", "api", "--image=nginx:1.27", "--port=8080", "-n", "pb-team")
    assert out == "deployment.apps/api created\n"
    containers = json.loads(kubectl.ok("get", "deploy", "api", "-n", "pb-team", "-o", "json"))["spec"][
        "template"
    ]["spec"]["containers"]
    assert containers[0]["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]


def test_create_deployment_twice_is_already_exists(kubectl):
    kubectl.ok("create", "deployment", "twice", "--image=nginx:1.27")
    again = kubectl.run("create", "deployment", "twice", "--image=nginx:1.27")
    assert again.returncode == 1
    assert again.stderr == ('error: failed to create deployment: deployments.apps "twice" already exists\n')
    kubectl.ok("delete", "deployment", "twice")


def test_drain_deletes_with_protobuf_delete_options(kubectl):
    """`--disable-eviction`: drain deletes each pod with a protobuf DeleteOptions body (as it does
    against a server whose discovery lists no pods/eviction)."""
    overrides = json.dumps({"spec": {"nodeName": "node2"}})
    kubectl.ok("run", "pbpod", "--image=nginx", "--labels=pb-drain=yes", f"--overrides={overrides}")
    try:
        out = kubectl.run(
            "drain",
            "node2",
            "--ignore-daemonsets",
            "--force",
            "--disable-eviction",
            "--pod-selector=pb-drain=yes",
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout == "node/node2 cordoned\npod/pbpod deleted\nnode/node2 drained\n"
        assert "Warning: deleting Pods that declare no controller: default/pbpod" in out.stderr
        assert pods_of(kubectl, "pb-drain=yes") == []
    finally:
        kubectl.ok("uncordon", "node2")


def test_drain_evicts_with_a_protobuf_eviction(kubectl):
    """With pods/eviction in discovery, drain POSTs a protobuf policy/v1 Eviction for each pod."""
    overrides = json.dumps({"spec": {"nodeName": "node2"}})
    kubectl.ok("run", "pbevict", "--image=nginx", "--labels=pb-evict=yes", f"--overrides={overrides}")
    try:
        out = kubectl.run("drain", "node2", "--ignore-daemonsets", "--force", "--pod-selector=pb-evict=yes")
        assert out.returncode == 0, out.stderr
        assert out.stdout == (
            "node/node2 cordoned\nevicting pod default/pbevict\npod/pbevict evicted\nnode/node2 drained\n"
        )
        assert pods_of(kubectl, "pb-evict=yes") == []
    finally:
        kubectl.ok("uncordon", "node2")


def anonymous_kubeconfig(kubectl) -> Path:
    """A kubeconfig with no credentials: read-only, as system:anonymous (plain HTTP, so that kubectl
    does not prompt for a user name as it does for an https server with no credentials)."""
    path = kubectl.home / "anonymous.kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "demo", "cluster": {"server": kubectl.server}}],
        "users": [{"name": "anonymous", "user": {}}],
        "contexts": [
            {"name": "demo", "context": {"cluster": "demo", "user": "anonymous", "namespace": "default"}}
        ],
        "current-context": "demo",
    }
    path.write_text(json.dumps(config))
    return path


def anonymous(kubectl) -> Kubectl:
    return Kubectl(kubectl.binary, kubectl.server, kubectl.home, anonymous_kubeconfig(kubectl))


def test_auth_can_i_for_the_teacher_and_for_anonymous(kubectl):
    yes = kubectl.run("auth", "can-i", "create", "pods")
    assert (yes.returncode, yes.stdout, yes.stderr) == (0, "yes\n", "")
    reader = anonymous(kubectl)
    no = reader.run("auth", "can-i", "create", "pods")
    assert (no.returncode, no.stdout, no.stderr) == (1, "no\n", "")
    assert reader.run("auth", "can-i", "delete", "deployments.apps", "-n", "kube-system").stdout == "no\n"
    assert reader.run("auth", "can-i", "list", "pods").stdout == "yes\n"
    assert reader.run("auth", "can-i", "watch", "nodes").stdout == "yes\n"
    # The answer is the rule the server enforces: the write it said no to is refused.
    refused = reader.run("run", "x", "--image=nginx")
    assert refused.returncode == 1
    assert 'User "system:anonymous" cannot create resource "pods"' in refused.stderr


def test_auth_whoami(kubectl):
    assert kubectl.ok("auth", "whoami") == (
        "ATTRIBUTE   VALUE\n"
        "Username    kubesim-presenter\n"
        "Groups      [system:masters system:authenticated]\n"
    )
    assert anonymous(kubectl).ok("auth", "whoami") == (
        "ATTRIBUTE   VALUE\nUsername    system:anonymous\nGroups      [system:unauthenticated]\n"
    )


def test_auth_can_i_list(kubectl):
    lines = anonymous(kubectl).ok("auth", "can-i", "--list").splitlines()
    assert lines[0].split() == ["Resources", "Non-Resource", "URLs", "Resource", "Names", "Verbs"]
    assert any(line.split() == ["*.*", "[]", "[]", "[get", "list", "watch]"] for line in lines)
    assert kubectl.ok("auth", "can-i", "--list").splitlines()[1].split() == ["*.*", "[]", "[]", "[*]"]

"""Services, Endpoints, ConfigMaps and Secrets with the real kubectl: create, expose, get and
describe print what a v1.33 cluster prints, and the kubelet's CreateContainerConfigError."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from cluster.kinds.core.configmap import describe_config_map
from cluster.kinds.core.pod import describe_pod
from cluster.kinds.core.secret import describe_secret
from cluster.kinds.core.service import describe_service
from tests.support.waiting import wait_for, without_ages

pytestmark = pytest.mark.kubectl
NS = "svc-lab"
WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"


@pytest.fixture(scope="module")
def lab(kubectl):
    kubectl.ok("create", "namespace", NS)
    yield NS
    kubectl.run("delete", "namespace", NS, "--wait=false")


def test_get_svc_kubernetes(kubectl):
    out = kubectl.ok("get", "svc", "kubernetes")
    header, row = out.splitlines()
    assert header == "NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE"
    assert re.fullmatch(r"kubernetes   ClusterIP   10\.96\.0\.1    <none>        443/TCP   \S+", row)
    service = json.loads(kubectl.ok("get", "svc", "kubernetes", "-o", "json"))
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}


def test_expose_a_deployment_and_its_endpoints_list_the_pods(kubectl, lab):
    created = kubectl.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "-n", lab)
    assert (created.returncode, created.stdout, created.stderr) == (0, "deployment.apps/web created\n", "")
    assert kubectl.ok("expose", "deployment", "web", "--port", "80", "-n", lab) == "service/web exposed\n"

    def running_ips():
        pods = json.loads(kubectl.ok("get", "pods", "-l", "app=web", "-n", lab, "-o", "json"))["items"]
        ips = [p["status"].get("podIP") for p in pods if p["status"].get("phase") == "Running"]
        return sorted(ips, key=lambda ip: [int(n) for n in ip.split(".")]) if len(ips) == 2 else None

    ips = wait_for(running_ips)
    assert ips

    def endpoints():
        result = kubectl.run("get", "endpoints", "web", "-n", lab)
        return result if ",".join(f"{ip}:80" for ip in ips) in result.stdout else None

    result = wait_for(endpoints)
    assert result, kubectl.run("get", "endpoints", "web", "-n", lab).stdout
    assert result.stderr == WARNING
    header, row = result.stdout.splitlines()
    assert header.split() == ["NAME", "ENDPOINTS", "AGE"]
    assert row.split()[:2] == ["web", ",".join(f"{ip}:80" for ip in ips)]

    service = json.loads(kubectl.ok("get", "svc", "web", "-n", lab, "-o", "json"))
    ip = service["spec"]["clusterIP"]
    assert service["spec"]["selector"] == {"app": "web"}
    out = kubectl.ok("get", "svc", "web", "-n", lab, "-o", "wide")
    assert out.splitlines()[0].split() == [
        "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR",
    ]  # fmt: skip
    assert out.splitlines()[1].split()[:5] == ["web", "ClusterIP", ip, "<none>", "80/TCP"]

    slices = kubectl.ok("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-n", lab)
    assert slices.splitlines()[1].split()[1:4] == ["IPv4", "80", ",".join(ips)]

    described = kubectl.ok("describe", "svc", "web", "-n", lab)
    assert f"Endpoints:                {ips[0]}:80,{ips[1]}:80\n" in described
    items = json.loads(kubectl.ok("get", "endpointslices", "-n", lab, "-o", "json"))["items"]
    ours = describe_service(service, items, [], datetime.now(UTC))
    assert described == ours

    # exec's curl reaches the Service by its name, through one of those endpoints.
    pod = json.loads(kubectl.ok("get", "pods", "-l", "app=web", "-n", lab, "-o", "json"))["items"][0]
    page = kubectl.ok("exec", pod["metadata"]["name"], "-n", lab, "--", "curl", "-s", "web")
    assert "<title>Welcome to nginx!</title>" in page


def test_create_service_nodeport_and_expose_rc(kubectl, lab):
    out = kubectl.ok("create", "service", "nodeport", "np", "--tcp=80:8080", "--node-port=30080", "-n", lab)
    assert out == "service/np created\n"
    row = kubectl.ok("get", "svc", "np", "-n", lab).splitlines()[1].split()
    assert row[1] == "NodePort" and row[4] == "80:30080/TCP"
    taken = kubectl.run("create", "service", "nodeport", "np2", "--tcp=80", "--node-port=30080", "-n", lab)
    assert taken.returncode == 1
    assert "spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated" in taken.stderr
    headless = kubectl.ok("create", "service", "clusterip", "db", "--clusterip=None", "-n", lab)
    assert headless == "service/db created\n"
    assert kubectl.ok("get", "svc", "db", "-n", lab).splitlines()[1].split()[2] == "None"

    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "nginx"},
        "spec": {
            "replicas": 1,
            "selector": {"app": "nginx"},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
            },
        },
    }
    kubectl.ok("apply", "-n", lab, "-f", "-", stdin=json.dumps(rc))
    assert kubectl.ok("expose", "rc", "nginx", "--port=80", "-n", lab) == "service/nginx exposed\n"
    assert json.loads(kubectl.ok("get", "svc", "nginx", "-n", lab, "-o", "json"))["spec"]["selector"] == {
        "app": "nginx"
    }


def test_create_configmap_and_secret(kubectl, lab, tmp_path):
    assert kubectl.ok("create", "configmap", "c", "--from-literal=a=b", "-n", lab) == "configmap/c created\n"
    config_map = json.loads(kubectl.ok("get", "cm", "c", "-n", lab, "-o", "json"))
    assert config_map["data"] == {"a": "b"}
    table = kubectl.ok("get", "cm", "c", "-n", lab)
    assert table.splitlines()[0].split() == ["NAME", "DATA", "AGE"]
    assert table.splitlines()[1].split()[:2] == ["c", "1"]
    assert kubectl.ok("describe", "cm", "c", "-n", lab) == describe_config_map(
        config_map, [], datetime.now(UTC)
    )

    (tmp_path / "app.conf").write_text("port=80\n")
    out = kubectl.ok("create", "configmap", "files", f"--from-file={tmp_path / 'app.conf'}", "-n", lab)
    assert out == "configmap/files created\n"
    files = json.loads(kubectl.ok("get", "cm", "files", "-n", lab, "-o", "json"))
    assert files["data"] == {"app.conf": "port=80\n"}

    out = kubectl.ok("create", "secret", "generic", "s", "--from-literal=user=admin", "-n", lab)
    assert out == "secret/s created\n"
    secret = json.loads(kubectl.ok("get", "secret", "s", "-n", lab, "-o", "json"))
    assert secret["type"] == "Opaque" and secret["data"] == {"user": "YWRtaW4="}
    assert kubectl.ok("get", "secret", "s", "-n", lab).splitlines()[1].split()[:3] == ["s", "Opaque", "1"]
    described = kubectl.ok("describe", "secret", "s", "-n", lab)
    assert described == describe_secret(secret)
    assert "user:  5 bytes\n" in described and "admin" not in described


def test_a_missing_config_map_is_create_container_config_error(kubectl, lab):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "needs-config"},
        "spec": {
            "containers": [
                {"name": "app", "image": "nginx:1.27", "envFrom": [{"configMapRef": {"name": "missing"}}]}
            ]
        },
    }
    kubectl.ok("apply", "-n", lab, "-f", "-", stdin=json.dumps(pod))

    def status():
        row = kubectl.ok("get", "pods", "needs-config", "-n", lab).splitlines()[1].split()
        return row if row[2] == "CreateContainerConfigError" else None

    row = wait_for(status)
    assert row and row[1] == "0/1", kubectl.ok("get", "pods", "-n", lab)
    described = kubectl.ok("describe", "pod", "needs-config", "-n", lab)
    assert "      Reason:       CreateContainerConfigError\n" in described
    assert re.search(r"Warning  Failed  +\S+ +kubelet +Error: configmap \"missing\" not found\n", described)
    # The console's describe is the same text (Environment Variables from: included).
    pod = json.loads(kubectl.ok("get", "pod", "needs-config", "-n", lab, "-o", "json"))
    events = json.loads(kubectl.ok("get", "events", "-n", lab, "-o", "json"))["items"]
    mine = [e for e in events if e["involvedObject"].get("name") == "needs-config"]
    described = kubectl.ok("describe", "pod", "needs-config", "-n", lab)
    assert "    Environment Variables from:\n      missing     ConfigMap  Optional: false\n" in described
    assert without_ages(described) == without_ages(describe_pod(pod, mine))

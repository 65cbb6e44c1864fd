"""The course's commands, run with the real kubectl against a live KubeSim.

Tests that need the embedded control plane (scheduling, kubelet status, logs, rollouts) use the
`control_plane` fixture: `manage.py serve` runs it, so a pod it does not schedule fails them.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from cluster.kinds.core.pod import describe_pod
from tests.kubectl.conftest import MANIFESTS

pytestmark = pytest.mark.kubectl


def manifest(name: str) -> str:
    return (MANIFESTS / name).read_text()


def jsonpath(kubectl, *args: str) -> str:
    return kubectl.ok("get", *args[:-1], "-o", f"jsonpath={args[-1]}")


def test_version_reports_1_33(kubectl):
    out = kubectl.ok("version", "-o", "json")
    assert json.loads(out)["serverVersion"]["gitVersion"].startswith("v1.33.")


def test_get_nodes_prints_the_real_columns(kubectl):
    out = kubectl.ok("get", "nodes")
    assert re.match(r"NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\n", out)
    assert re.search(r"^master\s+Ready\s+control-plane\s+\S+\s+v1\.33\.1$", out, re.M)
    assert re.search(r"^node1\s+Ready\s+<none>", out, re.M)


def test_get_nodes_wide_and_show_labels(kubectl):
    out = kubectl.ok("get", "nodes", "-o", "wide", "--show-labels")
    header = out.splitlines()[0].split()
    assert header[5:] == [
        "INTERNAL-IP",
        "EXTERNAL-IP",
        "OS-IMAGE",
        "KERNEL-VERSION",
        "CONTAINER-RUNTIME",
        "LABELS",
    ]
    assert "kubernetes.io/hostname=node1" in out


def test_create_get_and_output_formats(kubectl):
    assert kubectl.ok("create", "-f", "web.yaml").strip() == "pod/web created"
    out = kubectl.ok("get", "pods")
    # READY is 0/1 until the kubelet starts the container, then 1/1: both are what kubectl prints.
    assert re.search(r"^web\s+[01]/1\s+\S+\s+0\s+\S+$", out, re.M)
    wide = kubectl.ok("get", "pods", "-o", "wide").splitlines()[0].split()
    assert wide[5:] == ["IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"]
    assert kubectl.ok("get", "pods", "-A").splitlines()[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert "web" in kubectl.ok("get", "pods", "-l", "app=web")
    assert "web" not in kubectl.ok("get", "pods", "-l", "app=other")
    assert "name: web" in kubectl.ok("get", "pod", "web", "-o", "yaml")
    assert json.loads(kubectl.ok("get", "pod", "web", "-o", "json"))["metadata"]["name"] == "web"
    assert jsonpath(kubectl, "pod", "web", "{.spec.containers[0].image}") == "nginx:1.25"


def test_get_missing_pod_is_not_found_with_exit_code_1(kubectl):
    result = kubectl.run("get", "pod", "nope")
    assert result.returncode == 1
    assert result.stderr.strip() == 'Error from server (NotFound): pods "nope" not found'


def test_unknown_field_gets_the_strict_decoding_error(kubectl):
    result = kubectl.run("create", "-f", "typo.yaml")
    assert result.returncode == 1
    assert 'strict decoding error: unknown field "spec.containers[0].imagee"' in result.stderr
    assert "Error from server (BadRequest)" in result.stderr


def test_apply_creates_then_is_unchanged_then_configures(kubectl):
    out = kubectl.ok("apply", "-f", "workloads.yaml")
    assert out.splitlines() == ["deployment.apps/x created", "replicationcontroller/rc1 created"]
    assert kubectl.ok("apply", "-f", "workloads.yaml").splitlines() == [
        "deployment.apps/x unchanged",
        "replicationcontroller/rc1 unchanged",
    ]
    changed = manifest("workloads.yaml").replace("replicas: 2", "replicas: 3")
    assert "deployment.apps/x configured" in kubectl.ok("apply", "-f", "-", stdin=changed)
    assert jsonpath(kubectl, "deploy", "x", "{.spec.replicas}") == "3"
    annotations = json.loads(kubectl.ok("get", "deploy", "x", "-o", "json"))["metadata"]["annotations"]
    assert "kubectl.kubernetes.io/last-applied-configuration" in annotations
    out = kubectl.ok("get", "rc,rs,deploy")
    assert "replicationcontroller/rc1" in out and "deployment.apps/x" in out


def test_server_side_apply_creates_and_updates(kubectl):
    assert kubectl.ok("apply", "--server-side", "-f", "ssa.yaml").strip() == "pod/ssa serverside-applied"
    assert kubectl.ok("apply", "--server-side", "-f", "ssa.yaml").strip() == "pod/ssa serverside-applied"
    assert jsonpath(kubectl, "pod", "ssa", "{.metadata.labels.app}") == "ssa"


def test_label_overwrite_and_unlabel_nodes(kubectl):
    assert kubectl.ok("label", "nodes", "node1", "zz=cxk").strip() == "node/node1 labeled"
    refused = kubectl.run("label", "nodes", "node1", "zz=abc")
    assert refused.returncode == 1 and "already has a value (cxk)" in refused.stderr
    kubectl.ok("label", "--overwrite", "nodes", "node1", "zz=abc")
    assert jsonpath(kubectl, "node", "node1", "{.metadata.labels.zz}") == "abc"
    assert kubectl.ok("label", "nodes", "node1", "zz-").strip() == "node/node1 unlabeled"
    assert jsonpath(kubectl, "node", "node1", "{.metadata.labels.zz}") == ""


def test_cordon_taint_untaint_uncordon(kubectl):
    assert kubectl.ok("cordon", "node2").strip() == "node/node2 cordoned"
    assert re.search(r"^node2\s+Ready,SchedulingDisabled", kubectl.ok("get", "nodes"), re.M)
    assert kubectl.ok("taint", "nodes", "node2", "k=v:NoSchedule").strip() == "node/node2 tainted"
    taints = json.loads(jsonpath(kubectl, "node", "node2", "{.spec.taints}"))
    assert taints == [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    assert kubectl.ok("taint", "nodes", "node2", "k:NoSchedule-").strip() == "node/node2 untainted"
    assert jsonpath(kubectl, "node", "node2", "{.spec.taints}") == ""
    assert kubectl.ok("uncordon", "node2").strip() == "node/node2 uncordoned"
    assert jsonpath(kubectl, "node", "node2", "{.spec.unschedulable}") == ""


def test_scale_and_set_image(kubectl):
    kubectl.ok("apply", "-f", "workloads.yaml")
    assert kubectl.ok("scale", "rc", "rc1", "--replicas=3").strip() == "replicationcontroller/rc1 scaled"
    assert jsonpath(kubectl, "rc", "rc1", "{.spec.replicas}") == "3"
    assert kubectl.ok("scale", "deploy", "x", "--replicas=1").strip() == "deployment.apps/x scaled"
    assert (
        kubectl.ok("set", "image", "deploy/x", "nginx=nginx:1.16").strip()
        == "deployment.apps/x image updated"
    )
    assert jsonpath(kubectl, "deploy", "x", "{.spec.template.spec.containers[0].image}") == "nginx:1.16"


def test_describe_pod_is_the_shared_describe_output(kubectl):
    kubectl.run("create", "-f", "web.yaml")
    out = kubectl.ok("describe", "pod", "web")
    pod = json.loads(kubectl.ok("get", "pod", "web", "-o", "json"))
    events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
    mine = [
        e for e in events if e["involvedObject"].get("name") == "web" and e["involvedObject"]["kind"] == "Pod"
    ]
    ours = describe_pod(pod, mine)

    def without_ages(text: str) -> str:
        # Ages differ by the second between the two reads, and a wider age widens its column.
        return re.sub(r" {2,}", "  ", re.sub(r"\b\d+[smhdy]\d*[smhd]?\b", "AGE", text))

    assert without_ages(out) == without_ages(ours)


def test_describe_node_has_kubectls_sections(kubectl):
    out = kubectl.ok("describe", "node", "node1")
    for section in (
        "Name:",
        "Roles:",
        "Labels:",
        "Taints:",
        "Unschedulable:",
        "Lease:",
        "Conditions:",
        "Capacity:",
        "Allocatable:",
        "System Info:",
        "Non-terminated Pods:",
        "Allocated resources:",
        "Events:",
    ):
        assert re.search(rf"^{re.escape(section)}", out, re.M), section


def test_get_watch_prints_a_row_per_change(kubectl):
    watch = kubectl.popen("get", "pods", "-w")
    try:
        time.sleep(1.5)
        kubectl.ok("apply", "-f", "-", stdin=manifest("web.yaml").replace("name: web", "name: watched"))
        deadline = time.time() + 15
        seen = ""
        while time.time() < deadline and "watched" not in seen:
            seen += watch.stdout.readline()
        assert re.search(r"^watched\s+0/1", seen, re.M)
        assert watch.poll() is None, "a watch never closes on its own"
    finally:
        watch.kill()
        watch.wait()


def test_delete_pod_and_delete_file(kubectl):
    kubectl.run("create", "-f", "ssa.yaml")
    assert kubectl.ok("delete", "pod", "ssa", "--wait=false").strip() == 'pod "ssa" deleted'
    kubectl.run("apply", "-f", "workloads.yaml")
    out = kubectl.ok("delete", "-f", "workloads.yaml", "--wait=false")
    assert 'deployment.apps "x" deleted' in out and 'replicationcontroller "rc1" deleted' in out


def _scheduled(kubectl, name: str, seconds: float = 8) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if jsonpath(kubectl, "pod", name, "{.spec.nodeName}"):
            return True
        time.sleep(0.3)
    return False


@pytest.fixture
def control_plane(kubectl):
    kubectl.run("create", "-f", "web.yaml")
    # `manage.py serve` runs the embedded control plane: a pod it does not schedule is a failure.
    assert _scheduled(kubectl, "web", seconds=30), "the control plane did not schedule pod web"
    return kubectl


def test_pod_runs_and_logs(control_plane):
    kubectl = control_plane
    deadline = time.time() + 20
    while time.time() < deadline and "Running" not in kubectl.ok("get", "pod", "web"):
        time.sleep(0.5)
    assert re.search(r"^web\s+1/1\s+Running\s+0", kubectl.ok("get", "pod", "web"), re.M)
    assert kubectl.ok("logs", "web")
    describe = kubectl.ok("describe", "pod", "web")
    assert re.search(
        r"Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default/web to", describe
    )


def test_rollout_status_waits_for_the_deployment(control_plane):
    kubectl = control_plane
    kubectl.ok("apply", "-f", "workloads.yaml")
    out = kubectl.run("rollout", "status", "deploy/x", "--timeout=60s", timeout=70)
    assert out.returncode == 0 and 'deployment "x" successfully rolled out' in out.stdout

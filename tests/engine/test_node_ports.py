"""NodePorts, ported from upstream's nodeports/node_ports_test.go (TestNodePorts and TestFits)."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.nodeports.node_ports import ERR_REASON, NodePorts
from tests.engine.builders import container, make_node, make_pod, run_filter


def ports(*specs: str) -> list[dict]:
    """'UDP/127.0.0.1/8080' → a container port, as upstream's newPod helper."""
    result = []
    for spec in specs:
        protocol, ip, port = spec.split("/")
        entry: dict = {"containerPort": int(port), "hostPort": int(port)}
        if protocol:
            entry["protocol"] = protocol
        if ip:
            entry["hostIP"] = ip
        result.append(entry)
    return result


def pod_using(*specs: str, name: str = "p", node: str = "") -> dict:
    return make_pod(name, node_name=node, containers=[container(ports=ports(*specs))])


def check(pod: dict, *existing: str):
    """The filter status on node m1, which runs one pod holding `existing` host ports."""
    bound = [pod_using(*existing, name="holder", node="m1")] if existing else []
    return run_filter(NodePorts(), pod, [make_node("m1")], bound)["m1"]


UNSCHED = "unschedulable"
SKIPPED = "skip"
CASES = [
    ("skip filter", make_pod(), (), SKIPPED),
    ("other port", pod_using("UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/9090",), None),
    ("same udp port", pod_using("UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/8080",), UNSCHED),
    ("same tcp port", pod_using("TCP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), UNSCHED),
    ("different host ip", pod_using("TCP/127.0.0.1/8080"), ("TCP/127.0.0.2/8080",), None),
    ("different protocol", pod_using("UDP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), None),
    (
        "second udp port conflict",
        pod_using("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        ("UDP/127.0.0.1/8080",),
        UNSCHED,
    ),
    (
        "first tcp port conflict",
        pod_using("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
        UNSCHED,
    ),
    (
        "first tcp port conflict due to 0.0.0.0 hostIP",
        pod_using("TCP/0.0.0.0/8001"),
        ("TCP/127.0.0.1/8001",),
        UNSCHED,
    ),
    (
        "TCP hostPort conflict due to 0.0.0.0 hostIP",
        pod_using("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        ("TCP/127.0.0.1/8001",),
        UNSCHED,
    ),
    (
        "second tcp port conflict to 0.0.0.0 hostIP",
        pod_using("TCP/127.0.0.1/8001"),
        ("TCP/0.0.0.0/8001",),
        UNSCHED,
    ),
    ("second different protocol", pod_using("UDP/127.0.0.1/8001"), ("TCP/0.0.0.0/8001",), None),
    (
        "UDP hostPort conflict due to 0.0.0.0 hostIP",
        pod_using("UDP/127.0.0.1/8001"),
        ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
        UNSCHED,
    ),
    (
        "non-sidecar initContainer using hostPort",
        make_pod(init_containers=[container("init", ports=ports("TCP//8001"))]),
        ("TCP/0.0.0.0/8001",),
        SKIPPED,
    ),
    (
        "TCP hostPort conflict from sidecar initContainer",
        make_pod(init_containers=[container("side", ports=ports("TCP//8001"), restart_policy="Always")]),
        ("TCP/0.0.0.0/8001",),
        UNSCHED,
    ),
    # TestFits
    ("non-conflicting ports", pod_using("TCP/127.0.0.1/80"), ("TCP/127.0.0.1/9090",), None),
    (
        "multiple non-conflicting ports",
        pod_using("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
        ("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"),
        None,
    ),
    ("same ports on different protocols", pod_using("TCP/127.0.0.1/80"), ("UDP/127.0.0.1/80",), None),
    ("conflicting ports", pod_using("TCP/127.0.0.1/80"), ("TCP/127.0.0.1/80",), UNSCHED),
    (
        "multiple ports, some conflicting",
        pod_using("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
        ("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"),
        UNSCHED,
    ),
    # KubeSim additions (docs/scheduler.md §2.5): empty hostIP is 0.0.0.0, empty protocol is TCP.
    ("empty hostIP and protocol mean 0.0.0.0 and TCP", pod_using("//8080"), ("TCP/10.0.0.1/8080",), UNSCHED),
    ("empty protocol is TCP, not UDP", pod_using("/10.0.0.1/53"), ("UDP/10.0.0.1/53",), None),
]


@pytest.mark.parametrize(("pod", "existing", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter_matches_upstream_table(pod, existing, expected):
    status = check(pod, *existing)
    if expected is None:
        assert status is None
    elif expected == SKIPPED:
        assert status.code is Code.SKIP
        assert "hostPort" in status.why.en
    else:
        assert status.code is Code.UNSCHEDULABLE
        assert status.reasons == (ERR_REASON,)


def test_host_port_zero_is_ignored():
    pod = make_pod(
        containers=[container(ports=[{"containerPort": 80, "hostPort": 0}, {"containerPort": 81}])]
    )
    assert check(pod, "TCP/0.0.0.0/80").code is Code.SKIP


def test_why_names_the_port_field_and_the_port_in_use():
    status = check(pod_using("TCP/0.0.0.0/8001"), "TCP/127.0.0.1/8001")
    assert status.why.en == (
        "The pod's spec.containers[0].ports[0] asks for hostPort 0.0.0.0:8001/TCP, but a pod already on "
        "{node} holds 127.0.0.1:8001/TCP (0.0.0.0, the default for an empty hostIP, means every "
        "address of the node)."
    )
    assert "已有 Pod 占用了 127.0.0.1:8001/TCP" in status.why.zh


def test_only_nodes_holding_the_port_fail():
    nodes = [make_node(name) for name in ("a", "b", "c")]
    bound = [pod_using("TCP//80", name="web", node="b"), pod_using("TCP//81", name="api", node="c")]
    result = run_filter(NodePorts(), pod_using("TCP//80"), nodes, bound)
    assert {name for name, status in result.items() if status} == {"b"}

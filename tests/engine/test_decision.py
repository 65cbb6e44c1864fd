"""The decision's per-node explanation: names the node, keeps every filter, marks the first failure."""

from __future__ import annotations

from tests.engine.builders import container, decide, make_node, make_pod

NODES = [
    make_node("node1", labels={"disktype": "ssd"}, allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"}),
    make_node("node2", labels={"disktype": "hdd"}, allocatable={"cpu": "4", "memory": "4Gi", "pods": "10"}),
]


def test_each_why_names_its_own_node():
    pod = make_pod("web", nodeSelector={"disktype": "nvme"})
    result = decide(pod, NODES).to_json()
    assert "node1's label is disktype=ssd" in result["nodes"]["node1"]["filters"]["NodeAffinity"]["why"]["en"]
    assert (
        "节点 node2 的标签是 disktype=hdd" in result["nodes"]["node2"]["filters"]["NodeAffinity"]["why"]["zh"]
    )
    assert "{node}" not in str(result)


def test_teaching_mode_reports_every_failure_but_marks_the_first():
    pod = make_pod("web", nodeSelector={"disktype": "nvme"}, containers=[container(requests={"cpu": "2"})])
    node1 = decide(pod, NODES).to_json()["nodes"]["node1"]
    assert node1["firstFailure"]["plugin"] == "NodeAffinity"
    assert node1["filters"]["NodeResourcesFit"]["reasons"] == ["Insufficient cpu"]


def test_sidecar_host_ports_are_held_on_the_node():
    sidecar = container("proxy", ports=[{"containerPort": 15001, "hostPort": 15001}], restart_policy="Always")
    existing = make_pod("mesh", node_name="node2", init_containers=[sidecar])
    pod = make_pod("web", containers=[container(ports=[{"containerPort": 80, "hostPort": 15001}])])
    result = decide(pod, NODES, [existing]).to_json()
    assert result["nodes"]["node2"]["firstFailure"]["reasons"] == [
        "node(s) didn't have free ports for the requested pod ports"
    ]
    assert result["selected"] == "node1"

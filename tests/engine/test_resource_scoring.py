"""NodeResourcesFit scoring: upstream's least_allocated_test.go, most_allocated_test.go,
requested_to_capacity_ratio_test.go and TestFitScore tables, plus the explanations."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import CycleState
from scheduler.engine.plugins.noderesources.fit import NodeResourcesFit
from scheduler.engine.plugins.noderesources.resource_allocation import broken_linear
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, make_node, make_pod, run_score

EXT = "abc.com/xyz"
DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_EXT = [*DEFAULT, {"name": EXT, "weight": 1}]


def node(name: str, **capacity: str) -> dict:
    """st.MakeNode().Capacity(...): allocatable = capacity."""
    return make_node(name, allocatable={k.replace("_", "/"): v for k, v in capacity.items()})


def pod(*reqs: dict, name: str = "p", node_name: str = "") -> dict:
    """st.MakePod().Req(...)...: one container per Req."""
    return make_pod(
        name, node_name=node_name, containers=[container(f"c{i}", requests=r) for i, r in enumerate(reqs)]
    )


def bound(node_name: str, *reqs: dict) -> dict:
    return pod(*reqs, name=f"on-{node_name}-{id(reqs)}", node_name=node_name)


def empty_pod(node_name: str = "") -> dict:
    return make_pod("empty", node_name=node_name, containers=[])


N4_10 = [node("node1", cpu="4000", memory="10000"), node("node2", cpu="4000", memory="10000")]
N4_6 = [node("node1", cpu="4000", memory="10000"), node("node2", cpu="6000", memory="10000")]
N10_20 = [node("node1", cpu="10000", memory="20000"), node("node2", cpu="10000", memory="20000")]
N10_50 = [node("node1", cpu="10000", memory="20000"), node("node2", cpu="10000", memory="50000")]
N_EXT = [
    node("node1", cpu="6000", memory="10000"),
    node("node2", cpu="6000", memory="10000", **{"abc.com_xyz": "4"}),
]
N_EXT2 = [
    node("node1", cpu="6000", memory="10000", **{"abc.com_xyz": "4"}),
    node("node2", cpu="6000", memory="10000", **{"abc.com_xyz": "10"}),
]
REQ_1_2 = {"cpu": "1000", "memory": "2000"}
REQ_2_3 = {"cpu": "2000", "memory": "3000"}
C3_M0 = {"cpu": "3000", "memory": "0"}
C3_M5 = {"cpu": "3000", "memory": "5000"}


def scores(strategy: str, resources, requested, nodes, existing=(), shape=None) -> dict:
    scoring = {"type": strategy, "resources": resources}
    if shape is not None:
        scoring["requestedToCapacityRatio"] = {"shape": shape}
    return run_score(NodeResourcesFit({"scoringStrategy": scoring}), requested, nodes, list(existing))


LEAST = [
    ("nothing scheduled, nothing requested", DEFAULT, empty_pod(), N4_10, [], (100, 100)),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        DEFAULT,
        pod(REQ_1_2, REQ_2_3),
        N4_6,
        [],
        (37, 50),
    ),
    (
        "no resources requested, pods scheduled",
        DEFAULT,
        empty_pod(),
        N4_10,
        [empty_pod("node1"), empty_pod("node1"), empty_pod("node2"), empty_pod("node2")],
        (100, 100),
    ),
    (
        "no resources requested, pods scheduled with resources",
        DEFAULT,
        empty_pod(),
        N10_20,
        [bound("node1", C3_M0), bound("node1", C3_M0), bound("node2", C3_M0), bound("node2", C3_M5)],
        (70, 57),
    ),
    (
        "resources requested, pods scheduled with resources",
        DEFAULT,
        pod(REQ_1_2, REQ_2_3),
        N10_20,
        [bound("node1", C3_M0), bound("node2", C3_M5)],
        (57, 45),
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        DEFAULT,
        pod(REQ_1_2, REQ_2_3),
        N10_50,
        [bound("node1", C3_M0), bound("node2", C3_M5)],
        (57, 60),
    ),
    (
        "requested resources exceed node capacity",
        DEFAULT,
        pod(C3_M0),
        N4_10,
        [bound("node1", C3_M0), bound("node2", C3_M5)],
        (50, 25),
    ),
    (
        "zero node resources, pods scheduled with resources",
        DEFAULT,
        empty_pod(),
        [node("node1"), node("node2")],
        [bound("node1", C3_M0), bound("node2", C3_M5)],
        (0, 0),
    ),
    (
        "different weight on CPU and memory, differently sized nodes",
        [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
        pod(REQ_1_2, REQ_2_3),
        N4_6,
        [],
        (41, 50),
    ),
    (
        "bypass extended resource if the pod does not request",
        WITH_EXT,
        pod(REQ_1_2, REQ_2_3),
        N_EXT,
        [],
        (50, 50),
    ),
    (
        "honor extended resource if the pod requests",
        WITH_EXT,
        pod({"cpu": "3000", "memory": "5000", EXT: "2"}),
        N_EXT2,
        [],
        (50, 60),
    ),
    (
        "if the node doesn't have a resource",
        [{"name": EXT, "weight": 2}, *DEFAULT],
        pod({"cpu": "3000", "memory": "4000"}),
        N_EXT,
        [],
        (55, 55),
    ),
]

MOST = [
    ("nothing scheduled, nothing requested", DEFAULT, empty_pod(), N4_10, [], (0, 0)),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        DEFAULT,
        pod(REQ_1_2, REQ_2_3),
        N4_6,
        [],
        (62, 50),
    ),
    (
        "no resources requested, pods scheduled with resources",
        DEFAULT,
        empty_pod(),
        N10_20,
        [bound("node1", C3_M0), bound("node1", C3_M0), bound("node2", C3_M0), bound("node2", C3_M5)],
        (30, 42),
    ),
    (
        "resources requested, pods scheduled with resources",
        DEFAULT,
        pod(REQ_1_2, REQ_2_3),
        N10_20,
        [bound("node1", C3_M0), bound("node2", C3_M5)],
        (42, 55),
    ),
    (
        "resources requested equal node capacity",
        DEFAULT,
        pod({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
        [node("node1", cpu="5000", memory="10000"), node("node2", cpu="10000", memory="9000")],
        [],
        (95, 75),
    ),
    (
        "different weights, differently sized nodes",
        [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}],
        pod(REQ_1_2, REQ_2_3),
        N4_6,
        [],
        (58, 50),
    ),
    (
        "no resources requested, pods scheduled, nonzero request for resource",
        DEFAULT,
        make_pod("p", containers=[container("container")]),
        [node("node1", cpu="250m", memory="1000Mi"), node("node2", cpu="250m", memory="1000Mi")],
        [
            make_pod("a", node_name="node1", containers=[container("container")]),
            make_pod("b", node_name="node1", containers=[container("container")]),
        ],
        (80, 30),
    ),
    (
        "bypass extended resource if the pod does not request",
        WITH_EXT,
        pod(REQ_1_2, REQ_2_3),
        N_EXT,
        [],
        (50, 50),
    ),
    (
        "honor extended resource if the pod request",
        WITH_EXT,
        pod({"cpu": "3000", "memory": "5000", EXT: "2"}),
        N_EXT2,
        [],
        (50, 40),
    ),
    (
        "if the node doesn't have a resource",
        [{"name": EXT, "weight": 2}, *DEFAULT],
        pod({"cpu": "3000", "memory": "4000"}),
        N_EXT,
        [],
        (45, 45),
    ),
]

RTCR_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
RTCR = [
    (
        "nothing scheduled, nothing requested (default - least requested nodes have priority)",
        empty_pod(),
        N4_10,
        [empty_pod("node1"), empty_pod("node1")],
        (100, 100),
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        pod(REQ_1_2, REQ_2_3),
        N4_6,
        [empty_pod("node1"), empty_pod("node1")],
        (38, 50),
    ),
    (
        "no resources requested, pods scheduled with resources",
        empty_pod(),
        N4_6,
        [bound("node1", C3_M5), bound("node2", C3_M5)],
        (38, 50),
    ),
]


def ids(table):
    return [case[0] for case in table]


@pytest.mark.parametrize(
    ("resources", "requested", "nodes", "existing", "want"), [c[1:] for c in LEAST], ids=ids(LEAST)
)
def test_least_allocated(resources, requested, nodes, existing, want):
    assert tuple(scores("LeastAllocated", resources, requested, nodes, existing).values()) == want


@pytest.mark.parametrize(
    ("resources", "requested", "nodes", "existing", "want"), [c[1:] for c in MOST], ids=ids(MOST)
)
def test_most_allocated(resources, requested, nodes, existing, want):
    assert tuple(scores("MostAllocated", resources, requested, nodes, existing).values()) == want


@pytest.mark.parametrize(("requested", "nodes", "existing", "want"), [c[1:] for c in RTCR], ids=ids(RTCR))
def test_requested_to_capacity_ratio(requested, nodes, existing, want):
    got = scores("RequestedToCapacityRatio", DEFAULT, requested, nodes, existing, RTCR_SHAPE)
    assert tuple(got.values()) == want


def _ext_node(name: str, **ext: int) -> dict:
    # makeNode(name, 4000 millicores, 10000 MiB, extended)
    alloc = {"cpu": "4000m", "memory": str(10000 * 1024 * 1024)}
    alloc.update({f"intel.com/{k}": str(v) for k, v in ext.items()})
    return make_node(name, allocatable=alloc)


SINGLE = [
    ("nothing scheduled, nothing requested", empty_pod(), [], (0, 0)),
    (
        "resources requested, pods scheduled with less resources",
        pod({"intel.com/foo": "2"}),
        [empty_pod()],
        (2, 5),
    ),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        pod({"intel.com/foo": "2"}),
        [bound("node2", {"intel.com/foo": "2"})],
        (2, 10),
    ),
    (
        "resources requested, pods scheduled with more resources",
        pod({"intel.com/foo": "4"}),
        [empty_pod()],
        (5, 10),
    ),
]


@pytest.mark.parametrize(("requested", "existing", "want"), [c[1:] for c in SINGLE], ids=ids(SINGLE))
def test_resource_bin_packing_single_extended(requested, existing, want):
    nodes = [_ext_node("node1", foo=8), _ext_node("node2", foo=4)]
    shape = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]
    got = scores(
        "RequestedToCapacityRatio",
        [{"name": "intel.com/foo", "weight": 1}],
        requested,
        nodes,
        existing,
        shape,
    )
    assert tuple(got.values()) == want


MULTIPLE = [
    ("nothing scheduled, nothing requested", empty_pod(), [], (0, 0)),
    (
        "resources requested, pods scheduled with less resources",
        pod({"intel.com/foo": "2", "intel.com/bar": "2"}),
        [empty_pod()],
        (4, 3),
    ),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        pod({"intel.com/foo": "2", "intel.com/bar": "2"}),
        [bound("node2", {"intel.com/foo": "4", "intel.com/bar": "2"})],
        (4, 7),
    ),
    (
        "resources requested, pods scheduled with more resources",
        pod({"intel.com/foo": "4", "intel.com/bar": "2"}),
        [empty_pod()],
        (5, 5),
    ),
]


@pytest.mark.parametrize(("requested", "existing", "want"), [c[1:] for c in MULTIPLE], ids=ids(MULTIPLE))
def test_resource_bin_packing_multiple_extended_rounds_half_up(requested, existing, want):
    # (10·3 + 5·5)/8 = 6.875 → 7: RequestedToCapacityRatio uses math.Round, not truncation.
    nodes = [_ext_node("node1", foo=8, bar=4), _ext_node("node2", foo=4, bar=8)]
    shape = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]
    resources = [{"name": "intel.com/foo", "weight": 3}, {"name": "intel.com/bar", "weight": 5}]
    assert (
        tuple(scores("RequestedToCapacityRatio", resources, requested, nodes, existing, shape).values())
        == want
    )


FIT_SCORE = [
    (
        "RequestedToCapacityRatio case1",
        "RequestedToCapacityRatio",
        RTCR_SHAPE,
        {"cpu": "3000", "memory": "5000"},
        (10, 32),
    ),
    (
        "RequestedToCapacityRatio case2",
        "RequestedToCapacityRatio",
        [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
        {"cpu": "3000", "memory": "5000"},
        (95, 68),
    ),
    ("MostAllocated", "MostAllocated", None, REQ_1_2, (67, 36)),
    ("LeastAllocated", "LeastAllocated", None, REQ_1_2, (32, 63)),
]


@pytest.mark.parametrize(
    ("strategy", "shape", "pod_request", "want"), [c[1:] for c in FIT_SCORE], ids=ids(FIT_SCORE)
)
def test_fit_score(strategy, shape, pod_request, want):
    existing = [bound("node1", {"cpu": "2000", "memory": "4000"}), bound("node2", REQ_1_2)]
    assert tuple(scores(strategy, DEFAULT, pod(pod_request), N4_6, existing, shape).values()) == want


@pytest.mark.parametrize(("strategy", "want"), [("MostAllocated", (67, 45)), ("LeastAllocated", (32, 55))])
def test_fit_score_counts_sidecars_of_bound_pods(strategy, want):
    sidecar_pod = make_pod(
        "sidecar",
        node_name="node1",
        containers=[container(requests=REQ_1_2)],
        init_containers=[container("side", requests=REQ_1_2, restart_policy="Always")],
    )
    existing = [sidecar_pod, bound("node2", REQ_1_2)]
    assert tuple(scores(strategy, DEFAULT, pod(REQ_1_2), N4_10, existing).values()) == want


def test_score_works_without_pre_score():
    plugin = NodeResourcesFit()
    snapshot = Snapshot.from_objects(N4_6, [bound("node1", {"cpu": "2000", "memory": "4000"})])
    column = plugin.score(CycleState(), PodInfo.of(pod(REQ_1_2)), snapshot.nodes)
    assert column.raw == [32, 81]


BROKEN_LINEAR = [
    (
        [(10, 1), (90, 9)],
        [
            (-10, 1),
            (0, 1),
            (9, 1),
            (10, 1),
            (15, 1),
            (19, 1),
            (20, 2),
            (89, 8),
            (90, 9),
            (99, 9),
            (100, 9),
            (110, 9),
        ],
    ),
    (
        [(0, 2), (40, 10), (100, 0)],
        [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
    ),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize(("shape", "assertions"), BROKEN_LINEAR)
def test_broken_linear_function(shape, assertions):
    for utilization, expected in assertions:
        assert broken_linear(shape, utilization) == expected, utilization


def test_broken_linear_truncates_a_falling_slope_toward_zero():
    # Go: 100 + (0-100)*(67-0)/(200-0) = 100 + (-6700/200) = 100 - 33 (Go truncates -33.5 to -33,
    # where Python's // would give -34).
    assert broken_linear([(0, 100), (200, 0)], 67) == 67


# -- explanations ----------------------------------------------------------------------------------
def explain(plugin, requested, nodes, existing, node_index=0):
    snapshot = Snapshot.from_objects(nodes, existing)
    state, info = CycleState(), PodInfo.of(requested)
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    raw = column.raw[node_index]
    return plugin.explain_score(column.details[node_index], raw, raw, 1)


def test_least_allocated_explanation_shows_the_arithmetic():
    nodes = [node("node1", cpu="4", memory="10000")]
    existing = [bound("node1", {"cpu": "3500m", "memory": "5000"})]
    why = explain(NodeResourcesFit(), pod({"cpu": "0", "memory": "1000"}), nodes, existing)
    assert "cpu: (4000m−3500m)·100/4000m = 12 (3500m on the node + 0m this pod)" in why.en
    assert "memory: (10000−6000)·100/10000 = 40" in why.en
    assert "(12·1+40·1)/2 = 26" in why.en
    assert "(12·1+40·1)/2 = 26" in why.zh and "节点已有 3500m + 本 Pod 0m" in why.zh


def test_rtcr_explanation_shows_rounding_and_left_out_resources():
    plugin = NodeResourcesFit(
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "cpu"}, {"name": "example.com/gpu"}],
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                },
            }
        }
    )
    why = explain(plugin, pod({"cpu": "1"}), [node("node1", cpu="3")], [])
    assert "cpu: utilization 1000m·100/3000m = 33% → shape score 33" in why.en
    assert "round((33·1)/1) = 33" in why.en
    assert "left out: example.com/gpu" in why.en


def test_default_requests_are_counted_for_containers_without_requests():
    # 100m / 200Mi per container naming no request, only in scoring
    why = explain(NodeResourcesFit(), make_pod("p"), [node("node1", cpu="1", memory="1Gi")], [])
    assert "cpu: (1000m−100m)·100/1000m = 90 (0m on the node + 100m this pod)" in why.en

# ruff: noqa: E501 -- upstream test tables are ported one case per line
"""NodeResourcesBalancedAllocation: upstream's balanced_allocation_test.go table (v1.33: std
formula, actual requests, best-effort Skip), args validation and the explanation."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code, CycleState
from scheduler.engine.plugins.noderesources.balanced_allocation import BalancedAllocation, balanced_score
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, make_node, make_pod, run_score

DEFAULT = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
WITH_GPU = {"resources": [*DEFAULT["resources"], {"name": "nvidia.com/gpu", "weight": 1}]}


def node(name: str, milli_cpu: int, memory: int, gpu: int | None = None) -> dict:
    """makeNode(name, milliCPU, memory, extended)."""
    alloc = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if gpu is not None:
        alloc["nvidia.com/gpu"] = str(gpu)
    return make_node(name, allocatable=alloc)


def spec_pod(node_name: str, *requests: dict) -> dict:
    return make_pod(
        f"p-{node_name}-{id(requests)}",
        node_name=node_name,
        containers=[container(requests=r) for r in requests],
    )


def cpu_only(node_name: str = "node1") -> dict:
    return spec_pod(node_name, {"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})


def cpu_and_memory(node_name: str = "node2") -> dict:
    return spec_pod(node_name, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})


def cpu_memory_gpu(node_name: str = "node1") -> dict:
    return spec_pod(
        node_name,
        {"cpu": "1000m", "memory": "2000"},
        {"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"},
    )


def incoming(requests: list[dict]) -> dict:
    return make_pod("incoming", containers=[container(requests=r) for r in requests])


CPU_AND_MEMORY = [{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}]
CPU_ONLY = [{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}]

# fmt: off
CASES = [
    # Node1: 3000/4000 = 0.75 and 5000/10000 = 0.5 → std 0.125 → 87; Node2: 0.5 and 0.5 → 100
    ("nothing scheduled, resources requested, differently sized nodes",
     incoming(CPU_AND_MEMORY), [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], DEFAULT, (87, 100)),
    # Node1: 6000/10000 = 0.6, 5000/20000 = 0.25 → 82; Node2: 0.6, 0.5 → 95
    ("resources requested, pods scheduled with resources",
     incoming(CPU_AND_MEMORY), [node("node1", 10000, 20000), node("node2", 10000, 20000)], [cpu_only(), cpu_and_memory()], DEFAULT, (82, 95)),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     incoming(CPU_AND_MEMORY), [node("node1", 10000, 20000), node("node2", 10000, 50000)], [cpu_only(), cpu_and_memory()], DEFAULT, (82, 80)),
    # Node1: 6000/6000 = 1, 0 → std 0.5 → 50; Node2: 1, 0.5 → 75
    ("requested resources at node capacity",
     incoming(CPU_ONLY), [node("node1", 6000, 10000), node("node2", 6000, 10000)], [cpu_only(), cpu_and_memory()], DEFAULT, (50, 75)),
    # Three fractions: population standard deviation
    ("include scalar resource on a node for balanced resource allocation",
     incoming([{"memory": "0", "nvidia.com/gpu": "1"}]), [node("node1", 3500, 40000, 8), node("node2", 3500, 40000, 8)],
     [cpu_and_memory(), cpu_memory_gpu()], WITH_GPU, (70, 65)),
    # The pod does not request the GPU, so it is left out even where the node has it
    ("node without the scalar resource should skip the scalar resource",
     incoming(CPU_AND_MEMORY), [node("node1", 3500, 40000, 8), node("node2", 3500, 40000)], [], WITH_GPU, (63, 63)),
    # Requests above allocatable are capped at 1
    ("fraction above one is capped",
     incoming([{"cpu": "8", "memory": "1"}]), [node("node1", 4000, 10)], [], DEFAULT, (55,)),
]
# fmt: on


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "args", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_balanced_allocation(pod, nodes, existing, args, want):
    assert tuple(run_score(BalancedAllocation(args), pod, nodes, existing).values()) == want


def test_best_effort_pod_is_skipped_at_pre_score():
    nodes = [node("node1", 4000, 10000), node("node2", 4000, 10000)]
    assert run_score(BalancedAllocation(DEFAULT), make_pod("p", containers=[]), nodes) is None
    assert run_score(BalancedAllocation(DEFAULT), make_pod("p"), nodes) is None  # no requests at all


def test_skip_status_explains_why():
    snapshot = Snapshot.from_objects([node("node1", 4000, 10000)])
    status = BalancedAllocation().pre_score(CycleState(), PodInfo.of(make_pod("p")), snapshot.nodes, snapshot)
    assert status.code is Code.SKIP and "requests none of cpu, memory" in status.why.en


def test_pod_requesting_only_an_unconfigured_resource_is_still_skipped():
    pod = make_pod("p", containers=[container(requests={"example.com/foo": "1"})])
    assert run_score(BalancedAllocation(DEFAULT), pod, [node("node1", 4000, 10000)]) is None


def test_actual_requests_are_used_not_the_100m_defaults():
    # The bound pod names no requests: BalancedAllocation counts it as 0 (Fit would count 100m/200Mi).
    pod = make_pod("p", containers=[container(requests={"cpu": "1", "memory": "1000"})])
    bound = make_pod("b", node_name="node1", containers=[container()])
    assert run_score(BalancedAllocation(), pod, [node("node1", 2000, 2000)], [bound]) == {"node1": 100}


def test_score_works_without_pre_score():
    snapshot = Snapshot.from_objects([node("node1", 4000, 10000)])
    column = BalancedAllocation().score(CycleState(), PodInfo.of(incoming(CPU_AND_MEMORY)), snapshot.nodes)
    assert column.raw == [87]


@pytest.mark.parametrize(
    ("alloc_requested", "want"),
    [((4000, 3000, 10000, 5000), 87), ((0, 5, 10, 5), 100), ((10, 20, 10, 0), 50), ((), 100)],
    ids=["two fractions", "zero allocatable left out", "capped", "nothing"],
)
def test_balanced_score_formula(alloc_requested, want):
    assert balanced_score(alloc_requested) == want


def test_explanation_shows_fractions_and_std():
    nodes = [node("node1", 4000, 10000)]
    snapshot = Snapshot.from_objects(nodes)
    plugin, state, info = BalancedAllocation(), CycleState(), PodInfo.of(incoming(CPU_AND_MEMORY))
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    why = plugin.explain_score(column.details[0], 87, 87, 1)
    assert (
        "cpu 3000m/4000m = 0.75, memory 5000/10000 = 0.5 → std |0.75−0.5|/2 = 0.125 → ⌊(1−0.125)·100⌋ = 87"
        in why.en
    )
    assert "⌊(1−0.125)·100⌋ = 87" in why.zh


def test_explanation_for_three_resources_uses_the_population_std():
    nodes = [node("node1", 3500, 40000, 8)]
    existing = [cpu_memory_gpu()]
    snapshot = Snapshot.from_objects(nodes, existing)
    plugin, state = BalancedAllocation(WITH_GPU), CycleState()
    info = PodInfo.of(incoming([{"memory": "0", "nvidia.com/gpu": "1"}]))
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    assert column.raw == [70]
    assert "std √(Σ(f−" in plugin.explain_score(column.details[0], 70, 70, 1).en


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"resources": [{"name": "cpu", "weight": 2}]}, "resources[0].weight: Invalid value: 2: must be 1"),
        (
            {"resources": [{"name": "cpu"}, {"name": "cpu"}]},
            'resources[1].name: Duplicate value: "cpu"',
        ),
        ({"resourcez": []}, 'unknown field "resourcez"'),
    ],
    ids=["weight other than 1", "duplicate", "unknown field"],
)
def test_invalid_args_are_rejected(args, message):
    with pytest.raises(ValueError) as error:
        BalancedAllocation(args)
    assert str(error.value) == message


def test_weight_zero_defaults_to_one():
    assert BalancedAllocation({"resources": [{"name": "cpu", "weight": 0}]}).resources == (("cpu", 1),)

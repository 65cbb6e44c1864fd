"""The pod's effective request (resourcehelper.PodRequests): init max, sidecars, overhead, defaults."""

from __future__ import annotations

import pytest

from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.resources import Resource, is_scalar_resource, pod_requests
from tests.engine.builders import container, make_node, make_pod

DEFAULT_MEMORY = 200 * 1024 * 1024


def pod(containers=(), init=(), **spec) -> dict:
    return make_pod(
        "p",
        containers=[container(f"c{i}", requests=r) for i, r in enumerate(containers)],
        init_containers=[
            container(f"i{i}", requests=r, restart_policy="Always" if sidecar else None)
            for i, (r, sidecar) in enumerate(init)
        ],
        **spec,
    )


def cpu_mem(req: Resource) -> tuple[int, int]:
    return req.milli_cpu, req.memory


@pytest.mark.parametrize(
    ("the_pod", "expected"),
    [
        (
            pod([{"cpu": "1", "memory": "1G"}, {"cpu": "500m", "memory": "128Mi"}]),
            (1500, 10**9 + 128 * 2**20),
        ),
        # init containers take the max, not the sum (upstream's computePodResourceRequest example)
        (
            pod(
                [{"cpu": "2", "memory": "1G"}, {"cpu": "1", "memory": "1G"}],
                init=[({"cpu": "2", "memory": "1G"}, False), ({"cpu": "2", "memory": "3G"}, False)],
            ),
            (3000, 3 * 10**9),
        ),
        # a sidecar runs alongside the containers: it is added, and later init containers need it too
        (
            pod([{"cpu": "1"}], init=[({"cpu": "500m"}, True), ({"cpu": "1200m"}, False)]),
            (1700, 0),
        ),
        (pod([{"cpu": "1"}], init=[({"cpu": "500m"}, True), ({"cpu": "200m"}, True)]), (1700, 0)),
        # overhead (RuntimeClass) is added on top
        (
            pod([{"cpu": "1", "memory": "1Gi"}], overhead={"cpu": "250m", "memory": "120Mi"}),
            (1250, 2**30 + 120 * 2**20),
        ),
        (pod([]), (0, 0)),
    ],
    ids=["containers summed", "init max", "sidecar then init", "two sidecars", "overhead", "no containers"],
)
def test_effective_request(the_pod, expected):
    assert cpu_mem(pod_requests(the_pod)) == expected


def test_init_container_max_counts_sidecars_started_before_it():
    # the regular init container needs its own 1000m plus the 800m sidecar started before it
    the_pod = pod([{"cpu": "100m"}], init=[({"cpu": "800m"}, True), ({"cpu": "1"}, False)])
    assert pod_requests(the_pod).milli_cpu == 1800


@pytest.mark.parametrize(
    ("requests", "expected", "actual"),
    [
        (None, (100, DEFAULT_MEMORY), (0, 0)),
        ({"cpu": "250m"}, (250, DEFAULT_MEMORY), (250, 0)),
        ({"memory": "1Gi"}, (100, 2**30), (0, 2**30)),
        ({"cpu": "0", "memory": "0"}, (0, 0), (0, 0)),  # an explicit zero is not replaced
    ],
    ids=["nothing named", "memory missing", "cpu missing", "explicit zero"],
)
def test_non_zero_defaults_apply_only_to_missing_keys(requests, expected, actual):
    the_pod = make_pod("p", containers=[container(requests=requests)])
    assert cpu_mem(pod_requests(the_pod, non_zero=True)) == expected
    assert cpu_mem(pod_requests(the_pod)) == actual


def test_non_zero_defaults_are_per_container_including_init_containers():
    the_pod = make_pod("p", containers=[container("a"), container("b")], init_containers=[container("i")])
    assert cpu_mem(pod_requests(the_pod, non_zero=True)) == (200, 2 * DEFAULT_MEMORY)
    assert cpu_mem(pod_requests(the_pod)) == (0, 0)


def test_non_zero_defaults_are_not_applied_to_overhead_or_empty_pods():
    assert cpu_mem(pod_requests(make_pod("p", containers=[]), non_zero=True)) == (0, 0)
    with_overhead = make_pod(
        "p", containers=[container(requests={"cpu": "1", "memory": "1"})], overhead={"cpu": "1m"}
    )
    assert cpu_mem(pod_requests(with_overhead, non_zero=True)) == (1001, 1)


def test_requests_are_summed_exactly_then_rounded_up_once():
    the_pod = pod([{"cpu": "0.5m", "memory": "0.5"}, {"cpu": "0.5m", "memory": "0.5"}])
    assert cpu_mem(pod_requests(the_pod)) == (1, 1)
    assert cpu_mem(pod_requests(pod([{"cpu": "0.1m", "memory": "0.1"}]))) == (1, 1)


def test_scalar_requests_are_kept_and_other_names_dropped():
    the_pod = pod(
        [{"nvidia.com/gpu": "2", "hugepages-2Mi": "4Mi", "ephemeral-storage": "1Gi", "storage": "5"}]
    )
    req = pod_requests(the_pod)
    assert req.scalars == {"nvidia.com/gpu": 2, "hugepages-2Mi": 4 * 2**20}
    assert req.ephemeral_storage == 2**30


@pytest.mark.parametrize(
    ("name", "scalar"),
    [
        ("example.com/foo", True),
        ("nvidia.com/gpu", True),
        ("kubernetes.io/something", True),
        ("subdomain.kubernetes.io/something", True),
        ("hugepages-2Mi", True),
        ("attachable-volumes-aws-ebs", True),
        ("cpu", False),
        ("storage", False),
        ("requests.example.com/foo", False),
        ("Bad_Domain/foo", False),
    ],
)
def test_scalar_resource_names(name, scalar):
    assert is_scalar_resource(name) is scalar


def test_node_info_accumulates_requests_and_non_zero_requests():
    node = NodeInfo.of(
        make_node("n", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110", "example.com/x": "3"})
    )
    assert (node.allocatable.milli_cpu, node.allocatable.allowed_pod_number, node.allocatable.scalars) == (
        4000,
        110,
        {"example.com/x": 3},
    )
    first = PodInfo.of(make_pod("a", node_name="n", containers=[container(requests={"cpu": "1"})]))
    second = PodInfo.of(make_pod("b", node_name="n", containers=[container()]))
    node.add_pod(first)
    node.add_pod(second)
    assert (node.requested.milli_cpu, node.requested.memory) == (1000, 0)
    assert (node.non_zero_cpu, node.non_zero_memory) == (1100, 2 * DEFAULT_MEMORY)
    node.remove_pod(first)
    assert (node.requested.milli_cpu, node.non_zero_cpu) == (0, 100)

# ruff: noqa: E501 -- upstream test tables are ported one case per line, like fit_test.go
"""NodeResourcesFit filter: upstream's fit_test.go tables (TestEnoughRequests, TestNotEnoughRequests,
TestStorageRequests, TestRestartableInitContainers) plus the explanations and args validation."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.noderesources.fit import NodeResourcesFit, parse_fit_args, request_sources
from tests.engine.builders import container, make_node, make_pod, run_filter

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_A = "kubernetes.io/something"
K8S_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def res(cpu: int = 0, mem: int = 0, storage: int = 0, **scalars: int) -> dict:
    """A container request like upstream's framework.Resource: cpu in millicores, memory in bytes."""
    out = {"cpu": f"{cpu}m", "memory": str(mem), "pods": "0", "ephemeral-storage": str(storage)}
    out.update({_scalar(k): str(v) for k, v in scalars.items()})
    return out


def _scalar(key: str) -> str:
    return {"ext_a": EXT_A, "ext_b": EXT_B, "k8s_a": K8S_A, "k8s_b": K8S_B, "huge_a": HUGE_A}[key]


def pod_with(*usage: dict, init: tuple = (), overhead: dict | None = None) -> dict:
    extra = {"overhead": overhead} if overhead else {}
    return make_pod(
        "incoming",
        containers=[container(f"c{i}", requests=u) for i, u in enumerate(usage)],
        init_containers=[container(f"i{i}", requests=u) for i, u in enumerate(init)],
        **extra,
    )


def node_10_20(pods: int = 32) -> dict:
    # makeAllocatableResources(10, 20, 32, 5, 20, 5)
    return make_node(
        "node",
        allocatable={
            "cpu": "10m",
            "memory": "20",
            "pods": str(pods),
            EXT_A: "5",
            "ephemeral-storage": "20",
            HUGE_A: "5",
        },
    )


def existing(*usage: dict) -> list[dict]:
    return [make_pod("existing", node_name="node", containers=[container(requests=u) for u in usage])]


def reasons(args, pod, node, bound) -> tuple:
    status = run_filter(NodeResourcesFit(args), pod, [node], bound)["node"]
    if status is None:
        return ()
    assert status.code is Code.UNSCHEDULABLE  # v1.33: never UnschedulableAndUnresolvable
    return status.reasons


ENOUGH_REQUESTS = [
    ("no resources requested always fits", make_pod("p", containers=[]), [res(10, 20)], None, ()),
    ("too many resources fails", pod_with(res(1, 1)), [res(10, 20)], None, ("Insufficient cpu", "Insufficient memory")),
    ("too many resources fails due to init container cpu", pod_with(res(1, 1), init=(res(3, 1),)), [res(8, 19)], None, ("Insufficient cpu",)),
    ("too many resources fails due to highest init container cpu", pod_with(res(1, 1), init=(res(3, 1), res(2, 1))), [res(8, 19)], None, ("Insufficient cpu",)),
    ("too many resources fails due to init container memory", pod_with(res(1, 1), init=(res(1, 3),)), [res(9, 19)], None, ("Insufficient memory",)),
    ("too many resources fails due to highest init container memory", pod_with(res(1, 1), init=(res(1, 3), res(1, 2))), [res(9, 19)], None, ("Insufficient memory",)),
    ("init container fits because it's the max, not sum", pod_with(res(1, 1), init=(res(1, 1),)), [res(9, 19)], None, ()),
    ("multiple init containers fit because it's the max, not sum", pod_with(res(1, 1), init=(res(1, 1), res(1, 1))), [res(9, 19)], None, ()),
    ("both resources fit", pod_with(res(1, 1)), [res(5, 5)], None, ()),
    ("one resource memory fits", pod_with(res(2, 1)), [res(9, 5)], None, ("Insufficient cpu",)),
    ("one resource cpu fits", pod_with(res(1, 2)), [res(5, 19)], None, ("Insufficient memory",)),
    ("equal edge case", pod_with(res(5, 1)), [res(5, 19)], None, ()),
    ("equal edge case for init container", pod_with(res(4, 1), init=(res(5, 1),)), [res(5, 19)], None, ()),
    ("extended resource fits", pod_with(res(ext_a=1)), [res()], None, ()),
    ("extended resource fits for init container", pod_with(res(), init=(res(ext_a=1),)), [res()], None, ()),
    ("extended resource capacity enforced", pod_with(res(1, 1, ext_a=10)), [res(ext_a=0)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource capacity enforced for init container", pod_with(res(), init=(res(1, 1, ext_a=10),)), [res(ext_a=0)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource allocatable enforced", pod_with(res(1, 1, ext_a=1)), [res(ext_a=5)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource allocatable enforced for init container", pod_with(res(), init=(res(1, 1, ext_a=1),)), [res(ext_a=5)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource allocatable enforced for multiple containers", pod_with(res(1, 1, ext_a=3), res(1, 1, ext_a=3)), [res(ext_a=2)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource allocatable admits multiple init containers", pod_with(res(), init=(res(1, 1, ext_a=3), res(1, 1, ext_a=3))), [res(ext_a=2)], None, ()),
    ("extended resource allocatable enforced for multiple init containers", pod_with(res(), init=(res(1, 1, ext_a=6), res(1, 1, ext_a=3))), [res(ext_a=2)], None, (f"Insufficient {EXT_A}",)),
    ("extended resource allocatable enforced for unknown resource", pod_with(res(1, 1, ext_b=1)), [res()], None, (f"Insufficient {EXT_B}",)),
    ("extended resource allocatable enforced for unknown resource for init container", pod_with(res(), init=(res(1, 1, ext_b=1),)), [res()], None, (f"Insufficient {EXT_B}",)),
    ("kubernetes.io resource capacity enforced", pod_with(res(1, 1, k8s_a=10)), [res()], None, (f"Insufficient {K8S_A}",)),
    ("kubernetes.io resource capacity enforced for init container", pod_with(res(), init=(res(1, 1, k8s_b=10),)), [res()], None, (f"Insufficient {K8S_B}",)),
    ("hugepages resource capacity enforced", pod_with(res(1, 1, huge_a=10)), [res(huge_a=0)], None, (f"Insufficient {HUGE_A}",)),
    ("hugepages resource capacity enforced for init container", pod_with(res(), init=(res(1, 1, huge_a=10),)), [res(huge_a=0)], None, (f"Insufficient {HUGE_A}",)),
    ("hugepages resource allocatable enforced for multiple containers", pod_with(res(1, 1, huge_a=3), res(1, 1, huge_a=3)), [res(huge_a=2)], None, (f"Insufficient {HUGE_A}",)),
    ("skip checking ignored extended resource", pod_with(res(1, 1, ext_b=1)), [res()], {"ignoredResources": [EXT_B]}, ()),
    ("resources + pod overhead fits", pod_with(res(1, 1), overhead={"cpu": "3m", "memory": "13"}), [res(5, 5)], None, ()),
    ("requests + overhead does not fit for memory", pod_with(res(1, 1), overhead={"cpu": "1m", "memory": "15"}), [res(5, 5)], None, ("Insufficient memory",)),
    ("skip checking ignored extended resource via resource groups", pod_with(res(1, 1, ext_b=1, k8s_a=1)), [res()], {"ignoredResourceGroups": ["example.com"]}, (f"Insufficient {K8S_A}",)),
    ("skip checking extended resource request with quantity zero", pod_with(res(1, 1, ext_a=0)), [res(ext_a=6)], None, ()),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "bound", "args", "want"),
    [case[1:] for case in ENOUGH_REQUESTS],
    ids=[case[0] for case in ENOUGH_REQUESTS],
)
def test_enough_requests(pod, bound, args, want):
    assert reasons(args, pod, node_10_20(), existing(*bound)) == want


NOT_ENOUGH_PODS = [
    ("even without specified resources, predicate fails when there's no space for additional pod", make_pod("p", containers=[]), res(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod", pod_with(res(1, 1)), res(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod", pod_with(res(5, 1)), res(5, 19)),
    ("even for equal edge case, predicate fails when there's no space for additional pod due to init container", pod_with(res(5, 1), init=(res(5, 1),)), res(5, 19)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "bound"), [c[1:] for c in NOT_ENOUGH_PODS], ids=[c[0] for c in NOT_ENOUGH_PODS]
)
def test_too_many_pods_is_checked_first_and_even_for_empty_pods(pod, bound):
    node = make_node("node", allocatable={"cpu": "10m", "memory": "20", "pods": "1"})
    assert reasons(None, pod, node, existing(bound)) == ("Too many pods",)


def test_node_without_allocatable_pods_rejects_every_pod():
    node = make_node("node", allocatable={"cpu": "4", "memory": "8Gi"})
    assert reasons(None, make_pod("p"), node, []) == ("Too many pods",)


def test_reason_order_is_pods_cpu_memory_storage_then_scalars():
    node = make_node("node", allocatable={"cpu": "1m", "memory": "1", "ephemeral-storage": "1", "pods": "1"})
    pod = pod_with(res(2, 2, 2, ext_b=1, ext_a=1))
    assert reasons(None, pod, node, existing(res())) == (
        "Too many pods",
        "Insufficient cpu",
        "Insufficient memory",
        "Insufficient ephemeral-storage",
        f"Insufficient {EXT_A}",
        f"Insufficient {EXT_B}",
    )


STORAGE = [
    ("empty storage requested, and pod fits", pod_with(res(1, 1)), res(2, 10), ()),
    ("storage ephemeral local storage request exceeds allocatable", pod_with(res(storage=25)), res(2, 2), ("Insufficient ephemeral-storage",)),
    ("ephemeral local storage is sufficient", pod_with(res(storage=5)), res(2, 2, storage=10), ()),
    ("pod fits", pod_with(res(storage=10)), res(2, 2), ()),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "bound", "want"), [c[1:] for c in STORAGE], ids=[c[0] for c in STORAGE])
def test_storage_requests(pod, bound, want):
    assert reasons(None, pod, node_10_20(), existing(bound)) == want


@pytest.mark.parametrize(
    ("regular", "sidecar", "want"),
    [
        (None, None, ()),
        ({"cpu": "1m"}, {"cpu": "1m"}, ()),
        ({"cpu": "1m"}, {"cpu": "2m"}, ("Insufficient cpu",)),
    ],
    ids=["no requests", "total within allocatable", "sidecar pushes total over allocatable"],
)
def test_restartable_init_containers_are_summed(regular, sidecar, want):
    # SidecarContainers is GA in v1.33: no PreFilter rejection, the sidecar adds to the total.
    pod = make_pod(
        "p",
        containers=[container("regular", requests=regular)],
        init_containers=[container("restartable-init", requests=sidecar, restart_policy="Always")],
    )
    node = make_node("node", allocatable={"cpu": "2m", "memory": "0", "pods": "1"})
    assert reasons(None, pod, node, []) == want


def test_requests_are_summed_exactly_before_rounding_to_millicores():
    # Two 0.5m containers request 1m in total (resourcehelper adds Quantities, then MilliValue()).
    pod = pod_with({"cpu": "0.5m"}, {"cpu": "0.5m"})
    node = make_node("node", allocatable={"cpu": "1m", "pods": "1"})
    assert reasons(None, pod, node, []) == ()


def test_only_the_failing_nodes_are_returned_with_their_explanation():
    nodes = [
        make_node("node1", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}),
        make_node("node2", allocatable={"cpu": "8", "memory": "8Gi", "pods": "110"}),
    ]
    bound = [
        make_pod(f"b{i}", node_name="node1", containers=[container(requests={"cpu": "1000m"})])
        for i in range(3)
    ]
    bound.append(make_pod("b3", node_name="node1", containers=[container(requests={"cpu": "500m"})]))
    pod = make_pod("web", containers=[container(requests={"cpu": "1"})])
    result = run_filter(NodeResourcesFit(), pod, nodes, bound)
    assert result["node2"] is None
    why = result["node1"].why
    assert why.en == (
        "node1 has 4000m cpu allocatable, 3500m already requested by 4 pod(s); the pod's "
        "spec.containers[*].resources.requests.cpu totals 1000m > 500m free."
    )
    assert why.zh == (
        "node1 的可分配 cpu 为 4000m，已有 4 个 Pod 请求了 3500m；该 Pod 的 "
        "spec.containers[*].resources.requests.cpu 合计 1000m，超过剩余的 500m。"
    )


def test_explanation_names_memory_in_binary_units_and_the_pod_count():
    node = make_node("node", allocatable={"cpu": "4", "memory": "1Gi", "pods": "2"})
    bound = [make_pod("a", node_name="node", containers=[container(requests={"memory": "512Mi"})])]
    pod = make_pod("web", containers=[container(requests={"memory": "768Mi"})])
    why = run_filter(NodeResourcesFit(), pod, [node], bound)["node"].why
    assert "1Gi memory allocatable, 512Mi already requested by 1 pod(s)" in why.en
    assert "totals 768Mi > 512Mi free" in why.en


def test_too_many_pods_explanation_names_allocatable_pods():
    node = make_node("node2", allocatable={"cpu": "4", "pods": "1"})
    why = run_filter(NodeResourcesFit(), make_pod("p"), [node], [make_pod("a", node_name="node2")])[
        "node2"
    ].why
    assert "status.allocatable.pods is 1" in why.en and "status.allocatable.pods 为 1" in why.zh


@pytest.mark.parametrize(
    ("spec", "resource", "source"),
    [
        (
            {"containers": [container(requests={"cpu": "1"})]},
            "cpu",
            "spec.containers[*].resources.requests.cpu",
        ),
        (
            {
                "containers": [container(requests={"cpu": "1"})],
                "initContainers": [container(requests={"cpu": "2"})],
            },
            "cpu",
            "spec.initContainers[0].resources.requests.cpu (init containers take the max)",
        ),
        (
            {"containers": [container(requests={"memory": "1"})], "overhead": {"memory": "5"}},
            "memory",
            "spec.containers[*].resources.requests.memory + spec.overhead.memory",
        ),
        (
            {
                "containers": [container(requests={"cpu": "1"})],
                "initContainers": [container(requests={"cpu": "1"}, restart_policy="Always")],
            },
            "cpu",
            "spec.containers[*] and sidecar spec.initContainers[*].resources.requests.cpu",
        ),
    ],
    ids=["containers", "init container max", "overhead", "sidecar"],
)
def test_request_sources_name_the_fields_behind_the_request(spec, resource, source):
    assert request_sources({"spec": spec})[resource] == source


# -- args ----------------------------------------------------------------------------------------
def test_default_args_are_least_allocated_on_cpu_and_memory():
    config = parse_fit_args(None)
    assert config.strategy == "LeastAllocated"
    assert config.resources == (("cpu", 1), ("memory", 1))


def test_weight_zero_is_defaulted_to_one_as_v1_does():
    config = parse_fit_args(
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 0}]}}
    )
    assert config.resources == (("cpu", 1),)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory", "weight": -1}]}},
            "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid "
            "range (0, 100]",
        ),
        (
            {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory"}, {"name": "cpu", "weight": 101}]}},
            "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]",
        ),
        (
            {"scoringStrategy": {"type": "Fancy"}},
            'scoringStrategy.type: Unsupported value: "Fancy": supported values: "LeastAllocated", '
            '"MostAllocated", "RequestedToCapacityRatio"',
        ),
        (
            {"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
            "scoringStrategy.shape: Required value: at least one point must be specified",
        ),
        (
            {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
                {"utilization": 50, "score": 1}, {"utilization": 40, "score": 2}]}}},
            "scoringStrategy.shape[1].utilization: Invalid value: 40: values must be sorted in increasing order",
        ),
        (
            {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
                {"utilization": 101, "score": 11}]}}},
            "[scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100], "
            "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]]",
        ),
        ({"ignoredResourceGroups": ["example.com/aaa"]}, "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't contain '/'"),
        ({"scoringStrategy": {"type": "LeastAllocated", "resourcez": []}}, 'unknown field "scoringStrategy.resourcez"'),
        ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": "2"}]}}, 'scoringStrategy.resources[0].weight: Invalid value: "2": must be an integer'),
    ],
    ids=["negative weight", "weight above 100", "unknown type", "rtcr without shape", "unsorted shape", "shape out of range", "group with slash", "unknown field", "weight not an integer"],
)  # fmt: skip
def test_invalid_args_are_rejected_with_the_field_named(args, message):
    with pytest.raises(ValueError) as error:
        NodeResourcesFit(args)
    assert str(error.value) == message


def test_args_may_carry_api_version_and_kind():
    args = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs"}
    assert NodeResourcesFit(args).config.strategy == "LeastAllocated"

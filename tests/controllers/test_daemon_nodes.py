"""Ported from pkg/controller/daemon/daemon_controller_test.go (v1.33): TestNodeShouldRunDaemonPod's
table, the taint cases of TestTaintedNode*/TestNodeDaemonLaunchesToleratePod, and util's
ReplaceDaemonSetPodNodeNameNodeAffinity and AddOrUpdateDaemonPodTolerations."""

from __future__ import annotations

import pytest

from cluster.controllers.daemon_nodes import (
    add_daemon_tolerations,
    daemon_pod_spec,
    node_should_run_daemon_pod,
    replace_node_name_affinity,
)

SIMPLE_LABEL = {"name": "simple-daemon", "type": "production"}
SIMPLE_LABEL2 = {"name": "simple-daemon", "type": "test"}


def resource_pod_spec(node_name: str = "", memory: str = "50M", cpu: str = "0.5") -> dict:
    spec = {"containers": [{"resources": {"requests": {"memory": memory, "cpu": cpu}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return spec


def ds(spec: dict) -> dict:
    return {
        "spec": {
            "selector": {"matchLabels": SIMPLE_LABEL},
            "template": {"metadata": {"labels": SIMPLE_LABEL}, "spec": spec},
        }
    }


def node(labels: dict | None = None, unschedulable: bool = False, taints: list | None = None) -> dict:
    spec: dict = {"unschedulable": unschedulable} if unschedulable else {}
    if taints:
        spec["taints"] = taints
    return {
        "metadata": {"name": "test-node", "labels": labels if labels is not None else SIMPLE_LABEL},
        "spec": spec,
        "status": {"allocatable": {"memory": "100M", "cpu": "1"}},
    }


def affinity(value: str) -> dict:
    term = {"matchExpressions": [{"key": "type", "operator": "In", "values": [value]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


HOST_PORT_SPEC = {"containers": [{"ports": [{"hostPort": 666}]}]}


@pytest.mark.parametrize(
    ("predicate", "spec", "unschedulable", "should_run", "should_continue"),
    [
        ("ShouldRunDaemonPod", resource_pod_spec(), False, True, True),
        # Resources are the default scheduler's business, not the controller's.
        ("InsufficientResourceError", resource_pod_spec(memory="200M"), False, True, True),
        ("ErrPodNotMatchHostName", resource_pod_spec("other-node"), False, False, False),
        ("ErrPodNotFitsHostPorts", HOST_PORT_SPEC, False, True, True),
        ("ErrNodeSelectorNotMatch", {"nodeSelector": SIMPLE_LABEL2}, False, False, False),
        ("ShouldRunDaemonPod", {"nodeSelector": SIMPLE_LABEL}, False, True, True),
        ("ErrPodAffinityNotMatch", {"affinity": affinity("test")}, False, False, False),
        ("ShouldRunDaemonPod", {"affinity": affinity("production")}, False, True, True),
        # The node.kubernetes.io/unschedulable toleration every daemon pod gets.
        ("ShouldRunDaemonPodOnUnschedulableNode", resource_pod_spec(), True, True, True),
    ],
)
def test_node_should_run_daemon_pod(predicate, spec, unschedulable, should_run, should_continue):
    assert node_should_run_daemon_pod(node(unschedulable=unschedulable), ds(spec)) == (
        should_run,
        should_continue,
    ), predicate


NO_SCHEDULE = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "dedicated", "value": "x", "effect": "NoExecute"}


def test_tainted_node_daemon_does_not_launch_intolerant_pod():
    """TestTaintedNodeDaemonDoesNotLaunchIntolerantPod: NoSchedule keeps a new pod away, a
    running one stays (only NoExecute evicts)."""
    assert node_should_run_daemon_pod(node(taints=[NO_SCHEDULE]), ds(resource_pod_spec())) == (False, True)


def test_tainted_node_daemon_evicts_intolerant_pod():
    assert node_should_run_daemon_pod(node(taints=[NO_EXECUTE]), ds(resource_pod_spec())) == (False, False)


def test_node_daemon_launches_tolerate_pod():
    tolerant = {**resource_pod_spec(), "tolerations": [{"key": "dedicated", "operator": "Exists"}]}
    assert node_should_run_daemon_pod(node(taints=[NO_SCHEDULE, NO_EXECUTE]), ds(tolerant)) == (True, True)


def test_not_ready_node_daemon_launches_pod():
    """TestNotReadyNodeDaemonLaunchesPod: the default not-ready toleration."""
    taint = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
    assert node_should_run_daemon_pod(node(taints=[taint]), ds(resource_pod_spec())) == (True, True)


def test_the_control_plane_taint_keeps_daemon_pods_away_unless_tolerated():
    taint = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
    assert node_should_run_daemon_pod(node(taints=[taint]), ds({})) == (False, True)
    tolerant = {"tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}]}
    assert node_should_run_daemon_pod(node(taints=[taint]), ds(tolerant)) == (True, True)


MATCH_FIELDS = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["host_1"]}]}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            None,
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [MATCH_FIELDS]}
                }
            },
        ),
        (
            {},
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [MATCH_FIELDS]}
                }
            },
        ),
        (
            {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}},
            {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}],
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [MATCH_FIELDS]},
                }
            },
        ),
        # Every existing required term is replaced: the controller already checked them.
        (
            affinity("production"),
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [MATCH_FIELDS]}
                }
            },
        ),
        (
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["host_2"]}
                                ]
                            }
                        ]
                    }
                }
            },
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [MATCH_FIELDS]}
                }
            },
        ),
    ],
)
def test_replace_daemon_set_pod_node_name_node_affinity(given, expected):
    assert replace_node_name_affinity(given, "host_1") == expected


def test_add_or_update_daemon_pod_tolerations():
    spec = {
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 5,
            }
        ]
    }
    add_daemon_tolerations(spec)
    assert [(t["key"], t["effect"]) for t in spec["tolerations"]] == [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    assert "tolerationSeconds" not in spec["tolerations"][0]  # replaced: daemon pods stay on not-ready nodes
    host_network = {"hostNetwork": True}
    add_daemon_tolerations(host_network)
    assert host_network["tolerations"][-1] == {
        "key": "node.kubernetes.io/network-unavailable",
        "operator": "Exists",
        "effect": "NoSchedule",
    }


def test_the_daemon_pod_spec_leaves_the_template_untouched():
    template = {"containers": [{"name": "c"}]}
    spec = daemon_pod_spec(template, "node1")
    assert template == {"containers": [{"name": "c"}]}
    assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchFields"][0]["values"] == ["node1"]

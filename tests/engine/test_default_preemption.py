"""DefaultPreemption, ported from upstream's defaultpreemption/default_preemption_test.go.

TestDryRunPreemption exercises SelectVictimsOnNode (victims, reprieves, PDB violations, the
candidate limit and offset); TestSelectBestCandidate exercises pickOneNodeForPreemption;
TestPostFilter the whole PostFilter and its message. Upstream's test nodes have cpu 500m,
memory 500 and 32 pods unless a case says otherwise.
"""

from __future__ import annotations

import pytest

from scheduler.engine.cycle import schedule
from scheduler.engine.framework import Code, Status
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.preemption import (
    PodDisruptionBudget,
    calculate_num_candidates,
    pick_one_node,
    preempt,
    select_victims_on_node,
)
from scheduler.engine.profile import Profile, default_profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, make_node, make_pod

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
EPOCH = "1970-01-01T00:00:0{}Z"  # upstream's epochTime<N> are nanoseconds apart; seconds keep the order


def pod(name, priority=0, req=None, node="", labels=None, start=None, **spec):
    p = make_pod(
        name,
        labels=labels,
        node_name=node,
        containers=[container(requests=req)] if req else [container()],
        priority=priority,
        **spec,
    )
    if start is not None:
        p["status"] = {"startTime": EPOCH.format(start)}
    return p


def node(name, allocatable=None, labels=None, **kwargs):
    alloc = {"pods": "32", **(allocatable or VERY_LARGE)}
    return make_node(name, allocatable=alloc, labels=labels, **kwargs)


FIT_ONLY = Profile.build([("NodeResourcesFit", 1)])


def dry_run_all(profile, incoming, nodes, pods, pdbs=()):
    """Every node dry-run in name order, as TestDryRunPreemption with the default args."""
    snapshot = Snapshot.from_objects(nodes, pods)
    info = PodInfo.of(incoming)
    found = {}
    for n in sorted(snapshot.nodes, key=lambda n: n.name):
        run = select_victims_on_node(profile, info, snapshot, n, pdbs)
        if run.status is None:
            found[n.name] = (sorted(v.name for v in run.victims), run.num_pdb_violations)
    return found


def foo_pdb(allowed, disrupted=()):
    return PodDisruptionBudget(
        "pdb", "default", {"matchLabels": {"app": "foo"}}, allowed, frozenset(disrupted)
    )


# -- TestDryRunPreemption ------------------------------------------------------------------------
DRY_RUN_CASES = [
    (
        "a pod that fits on both nodes when lower priority pods are preempted",
        pod("p", HIGH, LARGE),
        [pod("p1", MID, LARGE, "node1"), pod("p2", MID, LARGE, "node2")],
        (),
        {"node1": (["p1"], 0), "node2": (["p2"], 0)},
    ),
    (
        "a pod that would fit on the nodes, but other pods running are higher"
        " priority, no preemption would happen",
        pod("p", LOW, LARGE),
        [pod("p1", MID, LARGE, "node1"), pod("p2", MID, LARGE, "node2")],
        (),
        {},
    ),
    (
        "medium priority pod is preempted, but lower priority one stays as it is small",
        pod("p", HIGH, LARGE),
        [pod("p1.1", LOW, SMALL, "node1"), pod("p1.2", MID, LARGE, "node1"), pod("p2", MID, LARGE, "node2")],
        (),
        {"node1": (["p1.2"], 0), "node2": (["p2"], 0)},
    ),
    (
        "mixed priority pods are preempted",
        pod("p", HIGH, LARGE),
        [
            pod("p1.1", MID, SMALL, "node1"),
            pod("p1.2", LOW, SMALL, "node1"),
            pod("p1.3", MID, MEDIUM, "node1"),
            pod("p1.4", HIGH, SMALL, "node1"),
            pod("p2", HIGH, LARGE, "node2"),
        ],
        (),
        {"node1": (["p1.2", "p1.3"], 0)},
    ),
    (
        "mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        pod("p", HIGH, LARGE),
        [
            pod("p1.1", LOW, SMALL, "node1", start=5),
            pod("p1.2", LOW, SMALL, "node1", start=4),
            pod("p1.3", MID, MEDIUM, "node1", start=3),
            pod("p1.4", HIGH, SMALL, "node1", start=2),
            pod("p2", HIGH, LARGE, "node2", start=1),
        ],
        (),
        {"node1": (["p1.1", "p1.3"], 0)},
    ),
    (
        "preemption with violation of same pdb",
        pod("p", HIGH, VERY_LARGE),
        [
            pod("p1.1", MID, MEDIUM, "node1", labels={"app": "foo"}),
            pod("p1.2", MID, MEDIUM, "node1", labels={"app": "foo"}),
        ],
        (foo_pdb(1),),
        {"node1": (["p1.1", "p1.2"], 1)},
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was"
        " processed, the victim doesn't belong to DisruptedPods",
        pod("p", HIGH, VERY_LARGE),
        [
            pod("p1.1", MID, MEDIUM, "node1", labels={"app": "foo"}),
            pod("p1.2", MID, MEDIUM, "node1", labels={"app": "foo"}),
        ],
        (foo_pdb(1, ["p2"]),),
        {"node1": (["p1.1", "p1.2"], 1)},
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was"
        " processed, the victim belongs to DisruptedPods",
        pod("p", HIGH, VERY_LARGE),
        [
            pod("p1.1", MID, MEDIUM, "node1", labels={"app": "foo"}),
            pod("p1.2", MID, MEDIUM, "node1", labels={"app": "foo"}),
        ],
        (foo_pdb(1, ["p1.2"]),),
        {"node1": (["p1.1", "p1.2"], 0)},
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was"
        " processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'",
        pod("p", HIGH, VERY_LARGE),
        [
            pod("p1.1", MID, MEDIUM, "node1", labels={"app": "foo"}),
            pod("p1.2", MID, MEDIUM, "node1", labels={"app": "foo"}),
            pod("p1.3", MID, MEDIUM, "node1", labels={"app": "foo"}),
        ],
        (foo_pdb(1, ["p1.3"]),),
        {"node1": (["p1.1", "p1.2", "p1.3"], 1)},
    ),
]


@pytest.mark.parametrize(
    ("name", "incoming", "pods", "pdbs", "expected"), DRY_RUN_CASES, ids=[c[0] for c in DRY_RUN_CASES]
)
def test_dry_run_preemption(name, incoming, pods, pdbs, expected):
    nodes = sorted({p["spec"]["nodeName"] for p in pods} | {"node1", "node2"})
    assert dry_run_all(FIT_ONLY, incoming, [node(n) for n in nodes], pods, pdbs) == expected


def test_dry_run_preemption_pod_with_anti_affinity_is_preempted():
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                    "topologyKey": "hostname",
                }
            ]
        }
    }
    profile = Profile.build([("NodeResourcesFit", 1), ("InterPodAffinity", 2)])
    nodes = [node("node1", labels={"hostname": "node1"}), node("node2", labels={"hostname": "node2"})]
    pods = [
        pod("p1.1", LOW, SMALL, "node1", labels={"foo": ""}, affinity=anti),
        pod("p1.2", MID, SMALL, "node1"),
        pod("p1.3", HIGH, SMALL, "node1"),
        pod("p2", HIGH, SMALL, "node2"),
    ]
    incoming = pod("p", HIGH, SMALL, labels={"foo": ""})
    assert dry_run_all(profile, incoming, nodes, pods) == {"node1": (["p1.1"], 0)}


def test_dry_run_preemption_to_resolve_pod_topology_spread_filter_failure():
    def constraint(key):
        return {
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
        }

    profile = Profile.build([("PodTopologySpread", 2)])
    nodes = [
        node("node-a", labels={"hostname": "node-a", "zone": "zone1"}),
        node("node-b", labels={"hostname": "node-b", "zone": "zone1"}),
        node("node-x", labels={"hostname": "node-x", "zone": "zone2"}),
    ]
    foo = {"foo": ""}
    pods = [
        pod("pod-a1", MID, node="node-a", labels=foo),
        pod("pod-a2", LOW, node="node-a", labels=foo),
        pod("pod-b1", LOW, node="node-b", labels=foo),
        pod("pod-x1", HIGH, node="node-x", labels=foo),
        pod("pod-x2", HIGH, node="node-x", labels=foo),
    ]
    incoming = pod(
        "p", HIGH, labels=foo, topologySpreadConstraints=[constraint("zone"), constraint("hostname")]
    )
    assert dry_run_all(profile, incoming, nodes, pods) == {
        "node-a": (["pod-a2"], 0),
        "node-b": (["pod-b1"], 0),
    }


def _limited(incoming, pods, offset, absolute, pdbs=()):
    """DryRunPreemption with DefaultPreemptionArgs{MinCandidateNodesPercentage: 40, ...Absolute}."""
    nodes = [node(f"node{i}") for i in range(1, 6)]
    snapshot = Snapshot.from_objects(nodes, pods)
    statuses = {n: Status(Code.UNSCHEDULABLE, ("Insufficient cpu",)) for n in snapshot.names()}
    result = preempt(
        FIT_ONLY,
        PodInfo.of(incoming),
        snapshot,
        statuses,
        pdbs,
        offset=offset,
        min_candidate_nodes_percentage=40,
        min_candidate_nodes_absolute=absolute,
    )
    return sorted(result.candidates)


def test_dry_run_preemption_all_nodes_are_possible_candidates_but_default_preemption_args_limits_to_2():
    pods = [pod(f"p{i}", MID, LARGE, f"node{i}") for i in range(1, 6)]
    # upstream's seeded random offset is 4: node5 (yes), node1 (yes)
    assert _limited(pod("p", HIGH, LARGE), pods, offset=4, absolute=1) == ["node1", "node5"]


def test_dry_run_preemption_some_nodes_are_not_possible_candidates_default_preemption_args_limits_to_2():
    priorities = [MID, VERY_HIGH, MID, MID, VERY_HIGH]
    pods = [pod(f"p{i}", priorities[i - 1], LARGE, f"node{i}") for i in range(1, 6)]
    # offset 4: node5 (no), node1 (yes), node2 (no), node3 (yes)
    assert _limited(pod("p", HIGH, LARGE), pods, offset=4, absolute=1) == ["node1", "node3"]


def test_dry_run_preemption_offset_across_multiple_scheduling_cycles_and_wrap_around():
    pods = [pod(f"p{i}", MID, LARGE, f"node{i}") for i in range(1, 6)]
    incoming = pod("tp", HIGH, LARGE)
    assert _limited(incoming, pods, offset=4, absolute=1) == ["node1", "node5"]
    assert _limited(incoming, pods, offset=1, absolute=1) == ["node2", "node3"]
    assert _limited(incoming, pods, offset=3, absolute=1) == ["node4", "node5"]


def test_dry_run_preemption_looks_past_num_candidates_until_a_non_pdb_violating_node_is_found():
    foo = {"app": "foo"}
    pods = [
        pod("p1", MID, LARGE, "node1", labels=foo),
        pod("p2", MID, LARGE, "node2", labels=foo),
        pod("p3", MID, LARGE, "node3"),
        pod("p4", MID, LARGE, "node4"),
        pod("p5", MID, LARGE, "node5", labels=foo),
    ]
    # offset 4: node5 (yes, pdb), node1 (yes, pdb), node2 (no, pdb: the list is full), node3 (yes)
    got = _limited(pod("p", HIGH, LARGE), pods, offset=4, absolute=2, pdbs=(foo_pdb(0),))
    assert got == ["node1", "node3", "node5"]


def test_calculate_num_candidates():
    assert calculate_num_candidates(10, 10, 100) == 10
    assert calculate_num_candidates(1000, 10, 100) == 100
    assert calculate_num_candidates(5000, 10, 100) == 500
    assert calculate_num_candidates(5, 40, 1) == 2


# -- TestSelectBestCandidate (pickOneNodeForPreemption) ------------------------------------------
SELECT_CASES = [
    (
        "node with min highest priority pod is picked",
        HIGH,
        [
            ("p1.1", MID, MEDIUM, "node1", 0),
            ("p1.2", MID, LARGE, "node1", 0),
            ("p2.1", MID, MEDIUM, "node2", 0),
            ("p2.2", LOW, MEDIUM, "node2", 0),
            ("p3.1", LOW, MEDIUM, "node3", 0),
            ("p3.2", LOW, MEDIUM, "node3", 0),
        ],
        "node3",
        "minHighestPriority",
    ),
    (
        "when highest priorities are the same, minimum sum of priorities is picked",
        HIGH,
        [
            ("p1.1", MID, MEDIUM, "node1", 0),
            ("p1.2", MID, LARGE, "node1", 0),
            ("p2.1", MID, LARGE, "node2", 0),
            ("p2.2", LOW, MEDIUM, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0),
            ("p3.2", MID, MEDIUM, "node3", 0),
        ],
        "node2",
        "minSumPriorities",
    ),
    (
        "when highest priority and sum are the same, minimum number of pods is picked",
        HIGH,
        [
            ("p1.1", MID, SMALL, "node1", 0),
            ("p1.2", NEG, SMALL, "node1", 0),
            ("p1.3", MID, SMALL, "node1", 0),
            ("p1.4", NEG, SMALL, "node1", 0),
            ("p2.1", MID, LARGE, "node2", 0),
            ("p2.2", NEG, MEDIUM, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0),
            ("p3.2", NEG, SMALL, "node3", 0),
            ("p3.3", LOW, SMALL, "node3", 0),
        ],
        "node2",
        "minSumPriorities",
    ),
    (
        "sum of adjusted priorities is considered",
        HIGH,
        [
            ("p1.1", MID, SMALL, "node1", 0),
            ("p1.2", NEG, SMALL, "node1", 0),
            ("p1.3", NEG, SMALL, "node1", 0),
            ("p2.1", MID, LARGE, "node2", 0),
            ("p2.2", NEG, MEDIUM, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0),
            ("p3.2", NEG, SMALL, "node3", 0),
            ("p3.3", LOW, SMALL, "node3", 0),
        ],
        "node2",
        "minSumPriorities",
    ),
    (
        "non-overlapping lowest high priority, sum priorities, and number of pods",
        VERY_HIGH,
        [
            ("p1.1", MID, SMALL, "node1", 0),
            ("p1.2", LOW, SMALL, "node1", 0),
            ("p1.3", LOW, SMALL, "node1", 0),
            ("p2.1", HIGH, LARGE, "node2", 0),
            ("p3.1", MID, MEDIUM, "node3", 0),
            ("p3.2", LOW, SMALL, "node3", 0),
            ("p3.3", LOW, SMALL, "node3", 0),
            ("p3.4", LOW, MEDIUM, "node3", 0),
            ("p4.1", MID, MEDIUM, "node4", 0),
            ("p4.2", MID, SMALL, "node4", 0),
            ("p4.3", MID, SMALL, "node4", 0),
            ("p4.4", NEG, SMALL, "node4", 0),
        ],
        "node1",
        "minSumPriorities",
    ),
    (
        "same priority, same number of victims, different start time for each node's pod",
        HIGH,
        [
            ("p1.1", MID, MEDIUM, "node1", 2),
            ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 3),
            ("p2.2", MID, MEDIUM, "node2", 3),
            ("p3.1", MID, MEDIUM, "node3", 1),
            ("p3.2", MID, MEDIUM, "node3", 1),
        ],
        "node2",
        "latestStartTime",
    ),
    (
        "same priority, same number of victims, different start time for all pods",
        HIGH,
        [
            ("p1.1", MID, MEDIUM, "node1", 4),
            ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 5),
            ("p2.2", MID, MEDIUM, "node2", 1),
            ("p3.1", MID, MEDIUM, "node3", 3),
            ("p3.2", MID, MEDIUM, "node3", 6),
        ],
        "node3",
        "latestStartTime",
    ),
    (
        "different priority, same number of victims, different start time for all pods",
        HIGH,
        [
            ("p1.1", LOW, MEDIUM, "node1", 4),
            ("p1.2", MID, MEDIUM, "node1", 2),
            ("p2.1", MID, MEDIUM, "node2", 6),
            ("p2.2", LOW, MEDIUM, "node2", 1),
            ("p3.1", LOW, MEDIUM, "node3", 3),
            ("p3.2", MID, MEDIUM, "node3", 5),
        ],
        "node2",
        "latestStartTime",
    ),
]


def _select(priority, rows, node_names):
    pods = [pod(name, prio, req, where, start=start) for name, prio, req, where, start in rows]
    snapshot = Snapshot.from_objects([node(n) for n in node_names], pods)
    statuses = {n: Status(Code.UNSCHEDULABLE, ("Insufficient cpu",)) for n in node_names}
    return preempt(FIT_ONLY, PodInfo.of(pod("p", priority, VERY_LARGE)), snapshot, statuses)


@pytest.mark.parametrize(
    ("name", "priority", "rows", "expected", "criterion"), SELECT_CASES, ids=[c[0] for c in SELECT_CASES]
)
def test_select_best_candidate(name, priority, rows, expected, criterion):
    node_names = sorted({row[3] for row in rows})
    result = _select(priority, rows, node_names)
    assert result.nominated_node == expected
    assert result.decided_by == criterion


def test_select_best_candidate_a_pod_that_fits_on_both_nodes_when_lower_priority_pods_are_preempted():
    rows = [("p1", MID, LARGE, "node1", 0), ("p2", MID, LARGE, "node2", 0)]
    result = _select(HIGH, rows, ["node1", "node2"])
    assert result.nominated_node in ("node1", "node2")
    assert result.decided_by == "firstCandidate"  # every criterion ties


def test_pick_one_node_for_preemption_fewest_pdb_violations_first():
    snapshot = Snapshot.from_objects(
        [node("node1"), node("node2")],
        [
            pod("a", LOW, LARGE, "node1", labels={"app": "foo"}),
            pod("b", MID, LARGE, "node2"),
        ],
    )
    info = PodInfo.of(pod("p", HIGH, LARGE))
    runs = [select_victims_on_node(FIT_ONLY, info, snapshot, n, (foo_pdb(0),)) for n in snapshot.nodes]
    chosen, criterion, applied = pick_one_node(runs)
    # node1's victim has the lower priority, but evicting it violates the budget.
    assert (chosen, criterion) == ("node2", "minNumPDBViolations")
    assert applied[0].scores == {"node1": -1, "node2": 0}


# -- TestPostFilter ------------------------------------------------------------------------------
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}


def post_filter(incoming, nodes, pods, profile=None):
    decision = schedule(incoming, Snapshot.from_objects(nodes, pods), profile or default_profile())
    return decision


def test_post_filter_pod_with_higher_priority_can_be_made_schedulable():
    d = post_filter(pod("p", HIGH), [make_node("node1", allocatable=ONE_POD)], [pod("p1", node="node1")])
    assert d.preemption.nominated_node == "node1"
    assert d.preemption.message == ""
    # A successful PostFilter adds no clause: the event is the plain FitError.
    assert d.message == "0/1 nodes are available: 1 Too many pods."


def test_post_filter_pod_with_tied_priority_is_still_unschedulable():
    d = post_filter(pod("p"), [make_node("node1", allocatable=ONE_POD)], [pod("p1", node="node1")])
    assert d.preemption.nominated_node is None
    assert d.preemption.message == (
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_post_filter_preemption_should_respect_filtered_nodes_statuses():
    taint = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    d = post_filter(
        pod("p", HIGH), [make_node("node1", allocatable=ONE_POD, taints=taint)], [pod("p1", node="node1")]
    )
    assert d.preemption.message == (
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )


def test_post_filter_pod_can_be_made_schedulable_on_one_node():
    nodes = [make_node("node1", allocatable=ONE_POD), make_node("node2", allocatable=ONE_POD)]
    pods = [pod("p1", HIGH, node="node1"), pod("p2", LOW, node="node2")]
    d = post_filter(pod("p", MID), nodes, pods)
    assert d.preemption.nominated_node == "node2"
    assert [v.name for v in d.preemption.victims] == ["p2"]


def test_post_filter_no_candidate_nodes_found_no_enough_resource_after_removing_low_priority():
    nodes = [node("node1", NODE_RES), node("node2", NODE_RES)]
    pods = [pod("p1", node="node1"), pod("p2", node="node2")]
    d = post_filter(pod("p", HIGH, LARGE), nodes, pods)
    assert d.preemption.message == "preemption: 0/2 nodes are available: 2 Insufficient cpu."


def test_post_filter_no_candidate_nodes_found_with_mixed_reasons_no_lower_priority_pod_and_no_cpu():
    """TestPostFilter: no candidate nodes found with mixed reasons, no lower priority pod and no
    enough CPU resource."""
    nodes = [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)]
    pods = [pod("p1", HIGH, node="node1"), pod("p2", node="node2"), pod("p3", HIGH, node="node3")]
    d = post_filter(pod("p", HIGH, LARGE), nodes, pods)
    assert d.preemption.message == (
        "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
        "2 No preemption victims found for incoming pod."
    )


def test_post_filter_no_candidate_nodes_found_with_mixed_reason_2_unresolvable_2_no_cpu():
    """TestPostFilter: no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable
    nodes and 2 nodes don't have enough CPU resource."""
    taint = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    nodes = [
        node("node1", NODE_RES),
        node("node2", NODE_RES),
        node("node3", NODE_RES, taints=taint),
        node("node4", NODE_RES, taints=taint),
    ]
    pods = [pod("p1", node="node1"), pod("p2", node="node2")]
    d = post_filter(pod("p", HIGH, LARGE), nodes, pods)
    assert d.preemption.message == (
        "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."
    )


def test_post_filter_preemption_policy_never():
    d = post_filter(
        pod("p", HIGH, preemptionPolicy="Never"),
        [make_node("node1", allocatable=ONE_POD)],
        [pod("p1", node="node1")],
    )
    assert not d.preemption.eligible
    assert d.message == (
        "0/1 nodes are available: 1 Too many pods. preemption: not eligible due to preemptionPolicy=Never."
    )


def test_pod_eligible_to_preempt_others_terminating_pod_on_nominated_node():
    victim = pod("v", LOW, node="node1")
    victim["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    victim["status"] = {
        "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]
    }
    incoming = pod("p", HIGH)
    incoming["status"] = {"nominatedNodeName": "node1"}
    d = post_filter(incoming, [make_node("node1", allocatable=ONE_POD)], [victim])
    assert d.preemption.message == "preemption: not eligible due to a terminating pod on the nominated node."


def test_nominated_pods_count_when_later_pods_are_filtered():
    """addNominatedPods: a pod nominated to node1 with equal or higher priority holds its room."""
    nodes = [make_node("node1", allocatable={"pods": "2", "cpu": "1", "memory": "1Gi"})]
    nominated = PodInfo.of(pod("big", HIGH, {"cpu": "800m"}))
    low = pod("low", LOW, {"cpu": "500m"})
    d = schedule(low, Snapshot.from_objects(nodes, []), nominated=[(nominated, "node1")])
    assert d.selected is None
    assert d.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert d.to_json()["nominatedPods"] == [{"pod": "default/big", "node": "node1"}]
    # A lower-priority nominated pod does not count against a higher-priority one.
    d = schedule(
        pod("top", VERY_HIGH, {"cpu": "500m"}),
        Snapshot.from_objects(nodes, []),
        nominated=[(nominated, "node1")],
    )
    assert d.selected == "node1"


def test_nominated_node_that_passes_every_filter_is_taken_unscored():
    nodes = [node("node1"), node("node2")]
    incoming = pod("p", HIGH, SMALL)
    incoming["status"] = {"nominatedNodeName": "node2"}
    d = schedule(incoming, Snapshot.from_objects(nodes, []))
    assert d.selected == "node2" and d.nominated_first and not d.columns


def test_dry_run_restores_the_snapshot_exactly():
    nodes = [node("node1")]
    pods = [pod("a", LOW, SMALL, "node1"), pod("b", MID, LARGE, "node1"), pod("c", HIGH, SMALL, "node1")]
    snapshot = Snapshot.from_objects(nodes, pods)
    before = ([p.name for p in snapshot.nodes[0].pods], snapshot.nodes[0].free)
    preempt(FIT_ONLY, PodInfo.of(pod("p", HIGH, LARGE)), snapshot, {"node1": Status(Code.UNSCHEDULABLE)})
    assert ([p.name for p in snapshot.nodes[0].pods], snapshot.nodes[0].free) == before


def test_random_tie_break_draws_upstreams_random_offset_and_tie():
    nodes = [node(f"node{i}") for i in range(1, 6)]
    pods = [pod(f"p{i}", MID, LARGE, f"node{i}") for i in range(1, 6)]
    picks = set()
    for seed in range(20):
        d = schedule(pod("p", HIGH, LARGE), Snapshot.from_objects(nodes, pods), tie_break="random", seed=seed)
        assert d.preemption.decided_by == "firstCandidate"
        picks.add(d.preemption.nominated_node)
    assert len(picks) > 1  # every node ties: the pick varies with the seed
    d = schedule(pod("p", HIGH, LARGE), Snapshot.from_objects(nodes, pods))
    assert d.preemption.nominated_node == "node1" and d.preemption.offset == 0

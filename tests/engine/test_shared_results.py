"""Results shared between cycles and decisions stay true when the nodes change, and kept decisions
hold few objects for the garbage collector."""

from __future__ import annotations

import gc

from scheduler.engine.cycle import schedule
from scheduler.engine.profile import default_profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod

ALLOCATABLE = {"cpu": "4", "memory": "8Gi", "pods": "10"}
GPU_TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def _nodes(**overrides: dict) -> list[dict]:
    nodes = {name: {"labels": {"disktype": "hdd"}, "allocatable": ALLOCATABLE} for name in ("n1", "n2", "n3")}
    for name, fields in overrides.items():
        nodes[name] = {**nodes[name], **fields}
    return [make_node(name, **fields) for name, fields in nodes.items()]


def _first_failures(snapshot: Snapshot, profile, pod: dict) -> dict[str, str]:
    decision = schedule(pod, snapshot, profile)
    return {node: status.plugin for node, status in decision.first_failure.items()}


def test_a_relabelled_node_is_judged_afresh_by_pods_with_the_same_node_selector():
    snapshot, profile = Snapshot.from_objects(_nodes()), default_profile()
    ssd = make_pod("a", nodeSelector={"disktype": "ssd"})
    assert _first_failures(snapshot, profile, ssd) == dict.fromkeys(("n1", "n2", "n3"), "NodeAffinity")
    (relabelled,) = _nodes(n2={"labels": {"disktype": "ssd"}, "allocatable": ALLOCATABLE})[1:2]
    snapshot.upsert_node(relabelled)
    again = schedule(make_pod("b", nodeSelector={"disktype": "ssd"}), snapshot, profile)
    assert again.feasible == ["n2"]
    assert again.selected == "n2"


def test_a_new_taint_or_cordon_is_seen_by_the_next_pod_with_the_same_tolerations():
    snapshot, profile = Snapshot.from_objects(_nodes()), default_profile()
    assert schedule(make_pod("a"), snapshot, profile).feasible == ["n1", "n2", "n3"]
    changed = _nodes(
        n1={"labels": {}, "allocatable": ALLOCATABLE, "taints": [GPU_TAINT]},
        n3={"labels": {}, "allocatable": ALLOCATABLE, "unschedulable": True},
    )
    snapshot.upsert_node(changed[0])
    snapshot.upsert_node(changed[2])
    assert _first_failures(snapshot, profile, make_pod("b")) == {
        "n1": "TaintToleration",
        "n3": "NodeUnschedulable",
    }
    snapshot.remove_node("n1")
    assert _first_failures(snapshot, profile, make_pod("c")) == {"n3": "NodeUnschedulable"}


def test_pods_of_one_template_share_their_failure_maps_while_the_nodes_stay_the_same():
    nodes = _nodes(
        n1={"labels": {}, "allocatable": ALLOCATABLE, "taints": [GPU_TAINT], "unschedulable": True}
    )
    snapshot, profile = Snapshot.from_objects(nodes), default_profile()
    first, second = (
        schedule(make_pod(name, nodeSelector={"disktype": "hdd"}), snapshot, profile) for name in "ab"
    )
    for plugin in ("NodeUnschedulable", "TaintToleration", "NodeAffinity"):
        assert first.filter_failures[plugin] is second.filter_failures[plugin]
    assert first.skipped_filters is second.skipped_filters


def test_a_kept_decision_holds_few_objects_the_collector_must_scan():
    nodes = [
        make_node(f"n{i}", labels={"zone": f"z{i % 3}", "disktype": "ssd"}, allocatable=ALLOCATABLE)
        for i in range(20)
    ]
    snapshot, profile = Snapshot.from_objects(nodes), default_profile()
    pods = [make_pod(f"p{i}", labels={"app": "web"}) for i in range(60)]
    decisions = [schedule(pod, snapshot, profile) for pod in pods[:10]]  # warm the shared caches
    for _ in range(3):  # nested tuples are let go one level per collection
        gc.collect()
    before = len(gc.get_objects())
    decisions += [schedule(pod, snapshot, profile) for pod in pods[10:]]
    for _ in range(3):
        gc.collect()
    per_decision = (len(gc.get_objects()) - before) / 50
    # The decision, its feasible list, its maps, one ScoreColumn per score plugin and the pod:
    # the score details are plain tuples, which the collector stops tracking.
    assert per_decision < 16

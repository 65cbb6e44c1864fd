"""The stored compact form expands back to exactly what Decision.to_json() says."""

from __future__ import annotations

import json
import random

import pytest

from bench.scheduling import make_nodes, make_pod
from scheduler.engine.compact import expand, to_compact
from scheduler.engine.cycle import schedule
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, decide, make_node
from tests.engine.builders import make_pod as pod


def round_trip(decision) -> None:
    stored = json.loads(json.dumps(to_compact(decision)))
    assert expand(stored) == decision.to_json()
    assert len(json.dumps(stored)) < len(json.dumps(decision.to_json()))


@pytest.mark.parametrize("score_all_nodes", [False, True])
def test_varied_pods_on_a_varied_cluster_round_trip(score_all_nodes):
    rng = random.Random(7)
    nodes = make_nodes(30, rng)
    bound = [make_pod(-(i + 1), rng, node_name=nodes[i % 30]["metadata"]["name"]) for i in range(60)]
    snapshot = Snapshot.from_objects(nodes, bound)
    for index in range(40):
        decision = schedule(make_pod(index, rng), snapshot, score_all_nodes=score_all_nodes)
        round_trip(decision)
        if decision.selected:
            snapshot.add_pod(decision.pod.bound_to(decision.selected))


def test_prefilter_rejection_and_narrowed_nodes_round_trip():
    nodes = [make_node(f"n{i}", allocatable={"cpu": "1", "memory": "1Gi", "pods": "5"}) for i in range(3)]
    by_name = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}  # fmt: skip
    round_trip(
        decide(pod("narrowed", affinity=by_name, containers=[container(requests={"cpu": "2"})]), nodes)
    )
    conflict = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
         "matchExpressions": [{"key": "metadata.name", "operator": "In", "values": ["x"]}]},
    ]}}}  # fmt: skip
    round_trip(decide(pod("conflict", affinity=conflict), nodes))


def test_a_full_form_is_returned_unchanged():
    decision = decide(pod("web"), [make_node("n1", allocatable={"cpu": "1", "pods": "5"})])
    assert expand(decision.to_json()) == decision.to_json()

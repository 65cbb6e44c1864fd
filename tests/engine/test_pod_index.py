"""Snapshot indexes stay equal to a fresh build through every kind of cluster change."""

from __future__ import annotations

from scheduler.engine.plugins.interpodaffinity.terms import ExistingTermsIndex
from scheduler.engine.pod_index import LabelIndex, walk_order
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod

ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}
        ]
    }
}


def _label_groups(snapshot: Snapshot) -> dict:
    index = snapshot.index(LabelIndex)
    return {
        key: {(pod.key, node.name, node.labels.get("zone")) for pod, node in group.members.items()}
        for key, group in index.groups.items()
    }


def _live_counts(snapshot: Snapshot) -> dict:
    """Each group's live_per_node, with each node's zone as the node it holds says."""
    return {
        key: {name: (node.labels.get("zone"), count) for name, (node, count) in group.live_per_node.items()}
        for key, group in snapshot.index(LabelIndex).groups.items()
    }


def _terminating(pod: dict) -> dict:
    pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


def _term_groups(snapshot: Snapshot) -> dict:
    index = snapshot.index(ExistingTermsIndex)
    return {
        (kind, match_key): {
            (entry.pod.key, entry.node.name, entry.node.labels.get("zone"), entry.rank)
            for entry in entries.values()
        }
        for kind, groups in index.groups.items()
        for match_key, entries in groups.items()
    }


def _fresh(snapshot: Snapshot) -> Snapshot:
    copy = Snapshot()
    for node in snapshot.nodes:
        copy.upsert_node(node.node)
    for pod in snapshot.pods():
        copy.add_pod(pod.pod)
    return copy


def test_indexes_follow_pods_and_nodes_as_they_come_and_go():
    nodes = [make_node(f"n{i}", labels={"zone": "a" if i % 2 else "b"}) for i in range(3)]
    pods = [
        make_pod(f"web-{i}", labels={"app": "web"}, node_name=f"n{i % 3}", affinity=ANTI if i % 2 else None)
        for i in range(6)
    ]
    snapshot = Snapshot.from_objects(nodes, pods)
    snapshot.index(LabelIndex)  # built now, maintained incrementally from here on
    snapshot.index(ExistingTermsIndex)

    snapshot.add_pod(make_pod("db-0", labels={"app": "db"}, node_name="n1", affinity=ANTI))
    snapshot.remove_pod(make_pod("web-1", labels={"app": "web"}, node_name="n1"))
    snapshot.upsert_node(make_node("n0", labels={"zone": "c"}))  # relabelled: its pods move along
    snapshot.remove_node("n2")  # its pods wait for the node to come back
    snapshot.add_pod(make_pod("late", labels={"app": "web"}, node_name="n9"))  # no such node yet
    snapshot.upsert_node(make_node("n9", labels={"zone": "a"}))
    snapshot.add_pod(_terminating(make_pod("going", labels={"app": "web"}, node_name="n0")))
    snapshot.remove_pod(make_pod("web-3", labels={"app": "web"}, node_name="n0"))
    snapshot.add_pod(_terminating(make_pod("web-3", labels={"app": "web"}, node_name="n0")))

    fresh = _fresh(snapshot)
    assert _label_groups(snapshot) == _label_groups(fresh)
    assert _live_counts(snapshot) == _live_counts(fresh)
    web = snapshot.index(LabelIndex).groups[("default", frozenset({("app", "web")}))]
    # n0 holds web-0, going and web-3 (the last two terminating); n1 web-4; n9 late.
    assert _live_counts(snapshot)[web.key] == {"n0": ("c", 1), "n1": ("a", 1), "n9": ("a", 1)}
    assert _term_groups(snapshot) == _term_groups(fresh)
    placed = {entry[:3] for entries in _term_groups(snapshot).values() for entry in entries}
    assert ("default/db-0", "n1", "a") in placed
    labelled = {entry for members in _label_groups(snapshot).values() for entry in members}
    assert ("default/web-0", "n0", "c") in labelled


def test_walk_order_replays_nodes_then_their_pods():
    nodes = [make_node(name) for name in ("b", "a", "c")]
    pods = [make_pod(f"p{i}", node_name=name) for i, name in enumerate(("c", "b", "c", "a"))]
    snapshot = Snapshot.from_objects(nodes, pods)
    placed = [(pod, node) for node in snapshot.nodes for pod in node.pods]
    shuffled = sorted(placed, key=lambda item: item[0].name, reverse=True)
    replayed = sorted(shuffled, key=lambda item: walk_order(snapshot, *item))
    assert [pod.name for pod, _ in replayed] == ["p1", "p3", "p0", "p2"]


def test_a_label_value_that_is_not_a_string_does_not_break_the_indexes():
    """Files read by `explain` are not validated by an API server: a label may hold a list."""
    nodes = [make_node(f"n{i}", labels={"zone": "a"}, allocatable={"pods": "10"}) for i in range(2)]
    odd = make_pod("odd", labels={"app": "web", "tags": ["x", "y"]}, node_name="n0")
    snapshot = Snapshot.from_objects(nodes, [odd, make_pod("web", labels={"app": "web"}, node_name="n1")])
    groups = snapshot.index(LabelIndex).candidates([(("app", "web"),)])
    assert sorted(pod.name for group in groups for pod in group.members) == ["odd", "web"]
    snapshot.remove_pod(odd)
    assert [pod.name for group in snapshot.index(LabelIndex).candidates([()]) for pod in group.members] == [
        "web"
    ]

"""TaintToleration, ported from upstream's tainttoleration/taint_toleration_test.go (v1.33 reason text)."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code, CycleState
from scheduler.engine.plugins.tainttoleration.taint_toleration import TaintToleration
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import decide, make_node, make_pod, run_filter, run_score


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict:
    result = {"key": key, "effect": effect}
    if value:
        result["value"] = value
    return result


def toleration(key: str = "", operator: str = "", value: str = "", effect: str = "") -> dict:
    fields = {"key": key, "operator": operator, "value": value, "effect": effect}
    return {name: text for name, text in fields.items() if text}


def pod_tolerating(*tolerations: dict) -> dict:
    return make_pod("pod1", tolerations=list(tolerations))


FILTER_CASES = [
    (
        "a pod having no tolerations can't be scheduled onto a node with nonempty taints",
        pod_tolerating(),
        [taint("dedicated", "user1")],
        "node(s) had untolerated taint {dedicated: user1}",
    ),
    (
        "a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        pod_tolerating(toleration("dedicated", value="user1", effect="NoSchedule")),
        [taint("dedicated", "user1")],
        None,
    ),
    (
        "a pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
        pod_tolerating(toleration("dedicated", "Equal", "user2", "NoSchedule")),
        [taint("dedicated", "user1")],
        "node(s) had untolerated taint {dedicated: user1}",
    ),
    (
        "a toleration with operator Exists tolerates the taint",
        pod_tolerating(toleration("foo", "Exists", effect="NoSchedule")),
        [taint("foo", "bar")],
        None,
    ),
    (
        "multiple tolerations tolerate all the taints",
        pod_tolerating(
            toleration("dedicated", "Equal", "user2", "NoSchedule"),
            toleration("foo", "Exists", effect="NoSchedule"),
        ),
        [taint("dedicated", "user2"), taint("foo", "bar")],
        None,
    ),
    (
        "keys and values match but the (non-empty) effect doesn't",
        pod_tolerating(toleration("foo", "Equal", "bar", "PreferNoSchedule")),
        [taint("foo", "bar")],
        "node(s) had untolerated taint {foo: bar}",
    ),
    (
        "an empty toleration effect matches the NoSchedule taint",
        pod_tolerating(toleration("foo", "Equal", "bar")),
        [taint("foo", "bar")],
        None,
    ),
    (
        "an untolerated PreferNoSchedule taint does not fail the filter",
        pod_tolerating(toleration("dedicated", "Equal", "user2", "NoSchedule")),
        [taint("dedicated", "user1", "PreferNoSchedule")],
        None,
    ),
    (
        "no toleration and only a PreferNoSchedule taint",
        pod_tolerating(),
        [taint("dedicated", "user1", "PreferNoSchedule")],
        None,
    ),
    # KubeSim additions, from docs/scheduler.md §2.3.
    (
        "a taint without value prints an empty value in the reason",
        pod_tolerating(),
        [taint("node-role.kubernetes.io/control-plane")],
        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
    ),
    (
        "NoExecute taints are checked too",
        pod_tolerating(toleration("foo", "Exists", effect="NoSchedule")),
        [taint("foo", "bar", "NoExecute")],
        "node(s) had untolerated taint {foo: bar}",
    ),
    (
        "the first untolerated taint in list order is reported",
        pod_tolerating(toleration("a", "Exists")),
        [taint("p", "1", "PreferNoSchedule"), taint("a", "1"), taint("b", "2"), taint("c", "3")],
        "node(s) had untolerated taint {b: 2}",
    ),
    (
        "an empty key with Exists tolerates every taint",
        pod_tolerating(toleration(operator="Exists")),
        [taint("a", "1"), taint("b", "2", "NoExecute")],
        None,
    ),
    (
        "an unknown operator tolerates nothing",
        pod_tolerating(toleration("a", "Lt", "5")),
        [taint("a", "1")],
        "node(s) had untolerated taint {a: 1}",
    ),
    (
        "Equal without a value only tolerates a taint without a value",
        pod_tolerating(toleration("a", "Equal")),
        [taint("a", "1")],
        "node(s) had untolerated taint {a: 1}",
    ),
]


@pytest.mark.parametrize(
    ("pod", "taints", "reason"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter_matches_upstream_table(pod, taints, reason):
    status = run_filter(TaintToleration(), pod, [make_node("nodeA", taints=taints)])["nodeA"]
    if reason is None:
        assert status is None
    else:
        assert status.code is Code.UNRESOLVABLE
        assert status.reasons == (reason,)
        assert status.why.en and status.why.zh


def test_why_names_the_taint_index_and_the_tolerations_field():
    nodes = [make_node("node1", taints=[taint("x", "1", "PreferNoSchedule"), taint("dedicated", "gpu")])]
    status = run_filter(TaintToleration(), pod_tolerating(toleration("x", "Exists")), nodes)["node1"]
    assert status.why.en == (
        "{node}'s spec.taints[1] dedicated=gpu:NoSchedule is not tolerated by any of the pod's "
        "spec.tolerations."
    )
    assert (
        status.why.zh == "节点 {node} 的 spec.taints[1] dedicated=gpu:NoSchedule "
        "没有被 Pod 的任何一条 spec.tolerations 容忍。"
    )
    bare = run_filter(TaintToleration(), pod_tolerating(), nodes)["node1"]
    assert "the pod has no spec.tolerations" in bare.why.en


def test_filter_walks_many_nodes_and_reports_each_by_its_own_taints():
    nodes = [
        make_node("clean"),
        make_node("gpu1", taints=[taint("dedicated", "gpu")]),
        make_node("gpu2", taints=[taint("dedicated", "gpu")]),
        make_node("db", taints=[taint("dedicated", "db")]),
        make_node("soft", taints=[taint("dedicated", "db", "PreferNoSchedule")]),
    ]
    pod = pod_tolerating(toleration("dedicated", "Equal", "db", "NoSchedule"))
    result = run_filter(TaintToleration(), pod, nodes)
    assert {name for name, status in result.items() if status} == {"gpu1", "gpu2"}
    assert result["gpu1"] is result["gpu2"]  # same taint at the same position: one shared status


SOFT_ARM = taint("cpu-type", "arm64", "PreferNoSchedule")
SOFT_SSD = taint("disk-type", "ssd", "PreferNoSchedule")
SCORE_CASES = [
    (
        "node with taints tolerated by the pod gets a higher score",
        pod_tolerating(toleration("foo", "Equal", "bar", "PreferNoSchedule")),
        {
            "nodeA": [taint("foo", "bar", "PreferNoSchedule")],
            "nodeB": [taint("foo", "blah", "PreferNoSchedule")],
        },
        {"nodeA": 100, "nodeB": 0},
    ),
    (
        "the number of tolerated taints does not matter",
        pod_tolerating(
            toleration("cpu-type", "Equal", "arm64", "PreferNoSchedule"),
            toleration("disk-type", "Equal", "ssd", "PreferNoSchedule"),
        ),
        {
            "nodeA": [],
            "nodeB": [SOFT_ARM],
            "nodeC": [
                taint("cpu-type", "arm64", "PreferNoSchedule"),
                taint("disk-type", "ssd", "PreferNoSchedule"),
            ],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 100},
    ),
    (
        "the more intolerable taints a node has, the lower its score",
        pod_tolerating(toleration("foo", "Equal", "bar", "PreferNoSchedule")),
        {
            "nodeA": [],
            "nodeB": [SOFT_ARM],
            "nodeC": [
                taint("cpu-type", "arm64", "PreferNoSchedule"),
                taint("disk-type", "ssd", "PreferNoSchedule"),
            ],
        },
        {"nodeA": 100, "nodeB": 50, "nodeC": 0},
    ),
    (
        "only PreferNoSchedule taints and tolerations count",
        pod_tolerating(
            toleration("cpu-type", "Equal", "arm64", "NoSchedule"),
            toleration("disk-type", "Equal", "ssd", "NoSchedule"),
        ),
        {
            "nodeA": [],
            "nodeB": [taint("cpu-type", "arm64", "NoSchedule")],
            "nodeC": [
                taint("cpu-type", "arm64", "PreferNoSchedule"),
                taint("disk-type", "ssd", "PreferNoSchedule"),
            ],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 0},
    ),
    (
        "no taints and tolerations: lands on the node with no taints",
        pod_tolerating(),
        {"nodeA": [], "nodeB": [SOFT_ARM]},
        {"nodeA": 100, "nodeB": 0},
    ),
    (
        "an empty-effect toleration counts against PreferNoSchedule taints",
        pod_tolerating(toleration("a", "Exists")),
        {"nodeA": [taint("a", "1", "PreferNoSchedule")], "nodeB": [taint("b", "1", "PreferNoSchedule")]},
        {"nodeA": 100, "nodeB": 0},
    ),
    (
        "truncating division: 1 of 3 intolerable taints gives 100 - 33",
        pod_tolerating(),
        {
            "nodeA": [taint("a", "1", "PreferNoSchedule")],
            "nodeB": [taint(k, "1", "PreferNoSchedule") for k in "abc"],
            "nodeC": [],
        },
        {"nodeA": 67, "nodeB": 0, "nodeC": 100},
    ),
]


@pytest.mark.parametrize(
    ("pod", "taints", "expected"), [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES]
)
def test_score_matches_upstream_table(pod, taints, expected):
    nodes = [make_node(name, taints=node_taints) for name, node_taints in taints.items()]
    assert run_score(TaintToleration(), pod, nodes) == expected


def test_pre_score_never_skips():
    snapshot = Snapshot.from_objects([make_node("a")])
    assert TaintToleration().pre_score(CycleState(), PodInfo.of(make_pod()), snapshot.nodes, snapshot) is None


def test_explain_score_shows_the_count_and_the_reversed_normalization():
    nodes = [
        make_node("two", taints=[taint("a", "1", "PreferNoSchedule"), taint("b", effect="PreferNoSchedule")]),
        make_node("one", taints=[taint("a", "1", "PreferNoSchedule")]),
    ]
    snapshot = Snapshot.from_objects(nodes)
    plugin, state, info = TaintToleration(), CycleState(), PodInfo.of(pod_tolerating())
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    assert column.raw == [2, 1]
    assert plugin.normalize_score(state, info, column.raw) == [0, 50]
    why = plugin.explain_score(column.details[0], 2, 0, 3)
    assert "2 intolerable PreferNoSchedule taint(s) (a=1:PreferNoSchedule, b:PreferNoSchedule)" in why.en
    assert "100 − 100·2/2 = 0; ×3 = 0" in why.en
    assert "100 − 100·1/2 = 50; ×3 = 150" in plugin.explain_score(column.details[1], 1, 50, 3).en
    assert "归一化" in why.zh


def test_a_reused_plugin_sees_a_node_whose_taints_changed():
    plugin, pod = TaintToleration(), PodInfo.of(pod_tolerating())
    snapshot = Snapshot.from_objects([make_node("n", taints=[taint("dedicated", "gpu")])])
    assert plugin.filter(CycleState(), pod, snapshot.nodes)["n"].reasons == (
        "node(s) had untolerated taint {dedicated: gpu}",
    )
    snapshot.upsert_node(make_node("n", taints=[taint("dedicated", "db")]))
    assert plugin.filter(CycleState(), pod, snapshot.nodes)["n"].reasons == (
        "node(s) had untolerated taint {dedicated: db}",
    )
    snapshot.upsert_node(make_node("n"))
    assert plugin.filter(CycleState(), pod, snapshot.nodes) == {}


def test_the_decision_explains_filter_and_score_per_node():
    nodes = [
        make_node("tainted", taints=[taint("dedicated", "gpu")]),
        make_node("soft", taints=[taint("a", "1", "PreferNoSchedule")]),
        make_node("clean"),
    ]
    decision = decide(pod_tolerating(), nodes, profile=Profile.build([("TaintToleration", 3)]))
    assert decision.selected == "clean"
    result = decision.to_json()["nodes"]
    assert result["tainted"]["firstFailure"]["reasons"] == ["node(s) had untolerated taint {dedicated: gpu}"]
    assert result["tainted"]["filters"]["TaintToleration"]["legacy"] == ["PodToleratesNodeTaints"]
    soft = result["soft"]["scores"]["TaintToleration"]
    assert (soft["raw"], soft["normalized"], soft["weighted"]) == (1, 0, 0)
    assert "100 − 100·1/1 = 0; ×3 = 0" in soft["why"]["en"]
    assert result["clean"]["total"] == 300

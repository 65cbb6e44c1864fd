"""NodeAffinity, ported from upstream's nodeaffinity/node_affinity_test.go plus KubeSim's explanations."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code, CycleState, PreFilterResult
from scheduler.engine.plugins.nodeaffinity.node_affinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
)
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import decide, make_node, make_pod, run_score

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"
SKIP = "skip"


def expr(key: str, operator: str, *values: str) -> dict:
    requirement = {"key": key, "operator": operator}
    if values:
        requirement["values"] = list(values)
    return requirement


def name_is(*values: str, operator: str = "In") -> dict:
    return {"key": "metadata.name", "operator": operator, "values": list(values)}


def term(*expressions: dict, fields: tuple = ()) -> dict:
    result: dict = {}
    if expressions:
        result["matchExpressions"] = list(expressions)
    if fields:
        result["matchFields"] = list(fields)
    return result


def required(*terms: dict) -> dict:
    return {"nodeAffinity": {REQ: {"nodeSelectorTerms": list(terms)}}}


def pod_with(affinity: dict | None = None, node_selector: dict | None = None) -> dict:
    fields: dict = {}
    if affinity is not None:
        fields["affinity"] = affinity
    if node_selector is not None:
        fields["nodeSelector"] = node_selector
    return make_pod("p", **fields)


def run_case(plugin: NodeAffinity, pod: dict, node: dict, run_pre_filter: bool = True):
    """(PreFilter outcome, Filter status or None) for one node, as upstream's table runner does."""
    snapshot = Snapshot.from_objects([node])
    state, info = CycleState(), PodInfo.of(pod)
    pre = plugin.pre_filter(state, info, snapshot.nodes, snapshot) if run_pre_filter else None
    return pre, plugin.filter(state, info, snapshot.nodes).get(node["metadata"]["name"])


ADDED_NODE2 = {REQ: {"nodeSelectorTerms": [term(fields=(name_is("node2"),))]}}
ADDED_ZONE_BAR = {REQ: {"nodeSelectorTerms": [term(expr("zone", "In", "bar"))]}}

# (name, pod, node labels, node name, filter reason, PreFilter outcome, addedAffinity);
# the PreFilter outcome is None, SKIP, a rejection reason or a frozenset of node names.
FILTER_CASES = [
    ("missing labels", pod_with(node_selector={"foo": "bar"}), {}, "n", ERR_REASON_POD, None, None),
    ("same labels", pod_with(node_selector={"foo": "bar"}), {"foo": "bar"}, "n", None, None, None),
    (
        "node labels are superset",
        pod_with(node_selector={"foo": "bar"}),
        {"foo": "bar", "baz": "blah"},
        "n",
        None,
        None,
        None,
    ),
    (
        "node labels are subset",
        pod_with(node_selector={"foo": "bar", "baz": "blah"}),
        {"foo": "bar"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "matchExpressions In matches",
        pod_with(required(term(expr("foo", "In", "bar", "value2")))),
        {"foo": "bar"},
        "n",
        None,
        None,
        None,
    ),
    (
        "matchExpressions Gt compares integers (0206 > 0204)",
        pod_with(required(term(expr("kernel-version", "Gt", "0204")))),
        {"kernel-version": "0206"},
        "n",
        None,
        None,
        None,
    ),
    (
        "matchExpressions NotIn matches",
        pod_with(required(term(expr("mem-type", "NotIn", "DDR", "DDR2")))),
        {"mem-type": "DDR3"},
        "n",
        None,
        None,
        None,
    ),
    (
        "matchExpressions Exists matches",
        pod_with(required(term(expr("GPU", "Exists")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "n",
        None,
        None,
        None,
    ),
    (
        "affinity that doesn't match node's labels",
        pod_with(required(term(expr("foo", "In", "value1", "value2")))),
        {"foo": "bar"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "empty matchExpressions matches no objects",
        pod_with(required({"matchExpressions": []})),
        {"foo": "bar"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    ("no affinity", pod_with(), {"foo": "bar"}, "n", None, SKIP, None),
    (
        "affinity with nil required node selector",
        pod_with({"nodeAffinity": {}}),
        {"foo": "bar"},
        "n",
        None,
        SKIP,
        None,
    ),
    (
        "multiple matchExpressions ANDed that match",
        pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "n",
        None,
        None,
        None,
    ),
    (
        "multiple matchExpressions ANDed that don't match",
        pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")))),
        {"GPU": "NVIDIA-GRID-K1"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "multiple nodeSelectorTerms ORed, one matches",
        pod_with(
            required(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2")))
        ),
        {"foo": "bar"},
        "n",
        None,
        None,
        None,
    ),
    (
        "affinity and nodeSelector both satisfied",
        pod_with(required(term(expr("foo", "Exists"))), node_selector={"foo": "bar"}),
        {"foo": "bar"},
        "n",
        None,
        None,
        None,
    ),
    (
        "affinity matches but nodeSelector does not",
        pod_with(required(term(expr("foo", "Exists"))), node_selector={"foo": "bar"}),
        {"foo": "barrrrrr"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "an invalid value in a NotIn term drops the term instead of matching",
        pod_with(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))),
        {"foo": "bar"},
        "n",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "matchFields In matches the node",
        pod_with(required(term(fields=(name_is("node1"),)))),
        {},
        "node1",
        None,
        frozenset({"node1"}),
        None,
    ),
    (
        "matchFields In does not match the node",
        pod_with(required(term(fields=(name_is("node1"),)))),
        {},
        "node2",
        ERR_REASON_POD,
        frozenset({"node1"}),
        None,
    ),
    (
        "two terms: matchFields does not match, matchExpressions does",
        pod_with(required(term(fields=(name_is("node1"), name_is("node2"))), term(expr("foo", "In", "bar")))),
        {"foo": "bar"},
        "node2",
        None,
        None,
        None,
    ),
    (
        "one term: matchFields does not match, matchExpressions does",
        pod_with(required(term(expr("foo", "In", "bar"), fields=(name_is("node1"),)))),
        {"foo": "bar"},
        "node2",
        ERR_REASON_POD,
        frozenset({"node1"}),
        None,
    ),
    (
        "one term: both matchFields and matchExpressions match",
        pod_with(required(term(expr("foo", "In", "bar"), fields=(name_is("node1"),)))),
        {"foo": "bar"},
        "node1",
        None,
        frozenset({"node1"}),
        None,
    ),
    (
        "two terms: neither matches",
        pod_with(required(term(fields=(name_is("node1"),)), term(expr("foo", "In", "not-match-to-bar")))),
        {"foo": "bar"},
        "node2",
        ERR_REASON_POD,
        None,
        None,
    ),
    (
        "two terms of node.Name affinity",
        pod_with(required(term(fields=(name_is("node1"),)), term(fields=(name_is("node2"),)))),
        {},
        "node2",
        None,
        frozenset({"node1", "node2"}),
        None,
    ),
    (
        "two conflicting matchFields requirements",
        pod_with(required(term(fields=(name_is("node1"), name_is("node2"))))),
        {"foo": "bar"},
        "node2",
        ERR_REASON_POD,
        ERR_REASON_CONFLICT,
        None,
    ),
    (
        "matches added affinity and pod's node affinity",
        pod_with(required(term(expr("zone", "In", "foo")))),
        {"zone": "foo"},
        "node2",
        None,
        None,
        ADDED_NODE2,
    ),
    (
        "matches added affinity but not pod's node affinity",
        pod_with(required(term(expr("zone", "In", "bar")))),
        {"zone": "foo"},
        "node2",
        ERR_REASON_POD,
        None,
        ADDED_NODE2,
    ),
    (
        "doesn't match added affinity",
        pod_with(),
        {"zone": "foo"},
        "node2",
        ERR_REASON_ENFORCED,
        None,
        ADDED_ZONE_BAR,
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "reason", "pre", "added"),
    [case[1:] for case in FILTER_CASES],
    ids=[case[0] for case in FILTER_CASES],
)
def test_filter_matches_upstream_table(pod, labels, node_name, reason, pre, added):
    plugin = NodeAffinity({"addedAffinity": added} if added else None)
    outcome, status = run_case(plugin, pod, make_node(node_name, labels=labels))
    if pre is None:
        assert outcome is None
    elif pre == SKIP:
        assert outcome.code is Code.SKIP
        assert outcome.why.en and outcome.why.zh
    elif isinstance(pre, frozenset):
        assert isinstance(outcome, PreFilterResult)
        assert outcome.node_names == pre
    else:
        assert outcome.code is Code.UNRESOLVABLE
        assert outcome.reasons == (pre,)
    if reason is None:
        assert status is None
    else:
        assert status.code is Code.UNRESOLVABLE
        assert status.reasons == (reason,)
        assert status.plugin == "NodeAffinity"
        assert status.why.en and status.why.zh


@pytest.mark.parametrize(
    ("pod", "labels", "reason"),
    [
        (pod_with(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, None),
        (
            pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD")))),
            {"GPU": "NVIDIA"},
            None,
        ),
        (pod_with(required(term(expr("GPU", "Exists")))), {}, ERR_REASON_POD),
    ],
    ids=["node selector", "node affinity", "node affinity mismatch"],
)
def test_filter_works_even_if_pre_filter_is_not_called(pod, labels, reason):
    _, status = run_case(NodeAffinity(), pod, make_node("n", labels=labels), run_pre_filter=False)
    assert (status.reasons if status else None) == ((reason,) if reason else None)


@pytest.mark.parametrize(
    ("expression", "labels", "fits"),
    [
        (expr("v", "Gt", "5"), {"v": "6"}, True),
        (expr("v", "Gt", "5"), {"v": "5"}, False),
        (expr("v", "Lt", "5"), {"v": "-3"}, True),
        (expr("v", "Gt", "5"), {"v": "six"}, False),
        (expr("v", "Gt", "5"), {}, False),
        (expr("v", "Gt", "five"), {"v": "6"}, False),
        (expr("v", "Gt", "5", "6"), {"v": "7"}, False),
        (expr("v", "DoesNotExist"), {}, True),
        (expr("v", "DoesNotExist"), {"v": ""}, False),
        (expr("v", "NotIn", "a"), {}, True),
        (expr("v", "In"), {"v": "a"}, False),
        (expr("v", "Exists", "a"), {"v": "a"}, False),
        (expr("v", "Bogus", "a"), {"v": "a"}, False),
    ],
)
def test_operators_and_invalid_requirements(expression, labels, fits):
    _, status = run_case(NodeAffinity(), pod_with(required(term(expression))), make_node("n", labels=labels))
    assert (status is None) is fits


def test_an_invalid_term_is_dropped_but_a_valid_term_still_matches():
    pod = pod_with(required(term(expr("a", "Bogus", "x")), term(expr("b", "In", "y"))))
    _, status = run_case(NodeAffinity(), pod, make_node("n", labels={"b": "y"}))
    assert status is None


def test_required_affinity_without_terms_rejects_every_node_without_skipping():
    pod = pod_with({"nodeAffinity": {REQ: {"nodeSelectorTerms": []}}})
    outcome, status = run_case(NodeAffinity(), pod, make_node("n", labels={"a": "b"}))
    assert outcome is None
    assert status.reasons == (ERR_REASON_POD,)
    assert "has no nodeSelectorTerms" in status.why.en


def test_empty_node_selector_is_not_skipped_and_fits_everything():
    outcome, status = run_case(NodeAffinity(), pod_with(node_selector={}), make_node("n"))
    assert outcome is None and status is None


def test_why_names_the_node_selector_field_and_the_node_label():
    pod = pod_with(node_selector={"disktype": "ssd"})
    _, status = run_case(NodeAffinity(), pod, make_node("node2", labels={"disktype": "hdd"}))
    assert (
        status.why.en
        == "The pod's spec.nodeSelector asks for disktype=ssd, but {node}'s label is disktype=hdd."
    )
    assert (
        status.why.zh == "Pod 的 spec.nodeSelector 要求 disktype=ssd，但节点 {node} 的标签是 disktype=hdd。"
    )
    _, status = run_case(NodeAffinity(), pod, make_node("node3"))
    assert "{node} has no disktype label" in status.why.en


def test_why_points_at_the_failing_expression_of_each_term():
    pod = pod_with(required(term(expr("gpu", "In", "a100", "h100")), term(expr("x", "Bogus"))))
    _, status = run_case(NodeAffinity(), pod, make_node("n", labels={"gpu": "t4"}))
    assert (
        "nodeSelectorTerms[0]: matchExpressions[0] gpu In [a100, h100] fails (the node has gpu=t4)"
        in status.why.en
    )
    assert "nodeSelectorTerms[1]: invalid" in status.why.en
    assert "不成立（节点标签为 gpu=t4）" in status.why.zh


def test_filter_is_column_wise_and_judges_each_node_by_its_own_labels():
    pod = pod_with(required(term(expr("zone", "In", "a")), term(fields=(name_is("special"),))))
    nodes = [
        make_node("n1", labels={"zone": "a"}),
        make_node("n2", labels={"zone": "b"}),
        make_node("n3", labels={"zone": "a", "other": "x"}),
        make_node("special", labels={"zone": "b"}),
        make_node("n5"),
    ]
    snapshot = Snapshot.from_objects(nodes)
    plugin, state, info = NodeAffinity(), CycleState(), PodInfo.of(pod)
    assert plugin.pre_filter(state, info, snapshot.nodes, snapshot) is None
    failures = plugin.filter(state, info, snapshot.nodes)
    assert sorted(failures) == ["n2", "n5"]
    assert failures["n2"] is not failures["n5"]  # different labels, different explanations


def test_added_affinity_with_an_invalid_term_is_a_configuration_error_naming_the_field():
    bad = {REQ: {"nodeSelectorTerms": [term(expr("zone", "In"))]}}
    with pytest.raises(ValueError, match=r"^addedAffinity\.requiredDuringSchedulingIgnoredDuringExecution"):
        NodeAffinity({"addedAffinity": bad})
    with pytest.raises(ValueError, match=r"^addedAffinity\.requiredDuringSchedulingRequired: unknown field"):
        NodeAffinity({"addedAffinity": {"requiredDuringSchedulingRequired": {}}})


THREE_NODES = [make_node("node1"), make_node("node2"), make_node("node3")]
FILTERS_ONLY = [
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("VolumeRestrictions", 0),
]


def test_conflicting_name_fields_fail_the_cycle_at_prefilter():
    pod = pod_with(required(term(fields=(name_is("node1"), name_is("node2")))))
    decision = decide(pod, THREE_NODES, profile=Profile.build(FILTERS_ONLY))
    assert decision.selected is None
    assert decision.message == (
        "0/3 nodes are available: pod affinity terms conflict. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_nodes_left_out_by_the_prefilter_result_count_as_absent():
    pod = pod_with(required(term(fields=(name_is("node1"),))), node_selector={"foo": "bar"})
    decision = decide(pod, THREE_NODES, profile=Profile.build(FILTERS_ONLY))
    assert decision.message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


# -- Score (TestNodeAffinityPriority) ----------------------------------------------------------
LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1_PREFERRED = [{"weight": 2, "preference": term(expr("foo", "In", "bar"))}]
AFFINITY2_PREFERRED = [
    {"weight": 2, "preference": term(expr("foo", "In", "bar"))},
    {"weight": 4, "preference": term(expr("key", "In", "value"))},
    {
        "weight": 5,
        "preference": term(expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")),
    },
]


def preferred(terms: list) -> dict:
    return {"nodeAffinity": {PREF: terms}}


SCORE_CASES = [
    ("no affinity: PreScore skips", pod_with(), [("node1", LABEL1), ("node2", LABEL2)], None, None),
    (
        "no node matches the preferred terms",
        pod_with(preferred(AFFINITY1_PREFERRED)),
        [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)],
        {"node1": 0, "node2": 0, "node3": 0},
        None,
    ),
    (
        "only node1 matches",
        pod_with(preferred(AFFINITY1_PREFERRED)),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)],
        {"node1": 100, "node2": 0, "node3": 0},
        None,
    ),
    (
        "all nodes match with different priorities",
        pod_with(preferred(AFFINITY2_PREFERRED)),
        [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)],
        {"node1": 18, "node5": 100, "node2": 36},
        None,
    ),
    (
        "added affinity",
        pod_with(),
        [("node1", LABEL1), ("node2", LABEL2)],
        {"node1": 100, "node2": 0},
        {PREF: AFFINITY1_PREFERRED},
    ),
    (
        "added affinity and pod has default affinity",
        pod_with(preferred(AFFINITY1_PREFERRED)),
        [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)],
        {"node1": 40, "node2": 60, "node3": 100},
        {PREF: [{"weight": 3, "preference": term(expr("key", "In", "value"))}]},
    ),
    (
        "weight-0 and empty preferred terms are ignored but the plugin still scores",
        pod_with(preferred([{"weight": 0, "preference": term(expr("foo", "In", "bar"))}, {"weight": 7}])),
        [("node1", LABEL1), ("node2", LABEL2)],
        {"node1": 0, "node2": 0},
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "expected", "added"),
    [case[1:] for case in SCORE_CASES],
    ids=[case[0] for case in SCORE_CASES],
)
def test_score_matches_upstream_table(pod, nodes, expected, added):
    plugin = NodeAffinity({"addedAffinity": added} if added else None)
    scores = run_score(plugin, pod, [make_node(name, labels=labels) for name, labels in nodes])
    assert scores == expected


def test_explain_score_shows_the_weights_and_the_normalization():
    pod = pod_with(
        preferred(
            [
                {"weight": 2, "preference": term(expr("a", "Exists"))},
                {"weight": 9, "preference": term(expr("b", "Exists"))},
            ]
        )
    )
    snapshot = Snapshot.from_objects(
        [make_node("n1", labels={"a": "1", "b": "1"}), make_node("n2", labels={"a": "1"})]
    )
    plugin, state, info = NodeAffinity(), CycleState(), PodInfo.of(pod)
    assert plugin.pre_score(state, info, snapshot.nodes, snapshot) is None
    column = plugin.score(state, info, snapshot.nodes)
    assert column.raw == [11, 2]
    normalized = plugin.normalize_score(state, info, column.raw)
    assert normalized == [100, 18]
    best = plugin.explain_score(column.details[0], 11, 100, 2)
    assert "weights 2+9 = 11" in best.en and "100·11/11 = 100" in best.en and "×2 = 200" in best.en
    assert "权重 2+9 = 11" in best.zh
    other = plugin.explain_score(column.details[1], 2, 18, 2)
    assert "100·2/11 = 18" in other.en


def test_invalid_preferred_terms_are_an_error_at_prescore_like_upstream():
    pod = pod_with(preferred([{"weight": 3, "preference": term(expr("zone", "In"))}]))
    snapshot = Snapshot.from_objects([make_node("n")])
    status = NodeAffinity().pre_score(CycleState(), PodInfo.of(pod), snapshot.nodes, snapshot)
    assert status.code is Code.ERROR
    assert status.reasons[0].startswith(f"spec.affinity.nodeAffinity.{PREF}[0].preference")


def test_invalid_added_preferred_terms_are_a_configuration_error():
    bad = {PREF: [{"weight": 3, "preference": term(expr("zone", "Gt", "x"))}]}
    with pytest.raises(ValueError, match=rf"^addedAffinity\.{PREF}\[0\]\.preference"):
        NodeAffinity({"addedAffinity": bad})


def test_the_decision_carries_the_score_explanation():
    pod = pod_with(preferred(AFFINITY2_PREFERRED))
    nodes = [
        make_node("node1", labels=LABEL1),
        make_node("node5", labels=LABEL5),
        make_node("node2", labels=LABEL2),
    ]
    decision = decide(pod, nodes, profile=Profile.build([("NodeAffinity", 2)]))
    assert decision.selected == "node5"
    scores = decision.to_json()["nodes"]["node5"]["scores"]["NodeAffinity"]
    assert (scores["raw"], scores["normalized"], scores["weighted"]) == (11, 100, 200)
    assert "weights 2+4+5 = 11" in scores["why"]["en"]
    assert scores["legacy"] == ["NodeAffinityPriority"]

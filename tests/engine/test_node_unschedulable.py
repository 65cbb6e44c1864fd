"""NodeUnschedulable, ported from upstream's nodeunschedulable/node_unschedulable_test.go."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.nodeunschedulable.node_unschedulable import (
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)
from tests.engine.builders import make_node, make_pod, run_filter

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"

CASES = [
    ("does not schedule pod to unschedulable node", [], True, False),
    ("schedules pod to normal node", [], False, True),
    (
        "schedules pod with toleration to unschedulable node",
        [{"key": UNSCHEDULABLE_KEY, "effect": "NoSchedule"}],
        True,
        True,
    ),
    # KubeSim additions, following the toleration rules of docs/scheduler.md §2.2/§2.3.
    ("an Exists toleration with an empty key tolerates it", [{"operator": "Exists"}], True, True),
    (
        "a toleration with an empty effect tolerates it",
        [{"key": UNSCHEDULABLE_KEY, "operator": "Exists"}],
        True,
        True,
    ),
    ("a NoExecute toleration does not", [{"key": UNSCHEDULABLE_KEY, "effect": "NoExecute"}], True, False),
    ("a toleration with a value does not", [{"key": UNSCHEDULABLE_KEY, "value": "true"}], True, False),
    ("a toleration of another key does not", [{"key": "other", "operator": "Exists"}], True, False),
]


@pytest.mark.parametrize(
    ("tolerations", "unschedulable", "fits"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_filter_matches_upstream_table(tolerations, unschedulable, fits):
    pod = make_pod(tolerations=tolerations)
    status = run_filter(NodeUnschedulable(), pod, [make_node("n", unschedulable=unschedulable)])["n"]
    if fits:
        assert status is None
    else:
        assert status.code is Code.UNRESOLVABLE
        assert status.reasons == (ERR_REASON_UNSCHEDULABLE,) == ("node(s) were unschedulable",)
        assert "spec.unschedulable: true" in status.why.en
        assert "spec.unschedulable: true" in status.why.zh


def test_only_cordoned_nodes_fail():
    nodes = [
        make_node("a"),
        make_node("b", unschedulable=True),
        make_node("c"),
        make_node("d", unschedulable=True),
    ]
    result = run_filter(NodeUnschedulable(), make_pod(), nodes)
    assert [name for name, status in result.items() if status] == ["b", "d"]

"""NodeName, ported from upstream's nodename/node_name_test.go."""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code
from scheduler.engine.plugins.nodename.node_name import ERR_REASON, NodeName
from tests.engine.builders import make_node, make_pod, run_filter


@pytest.mark.parametrize(
    ("pod_node_name", "node", "fits"),
    [("", "foo", True), ("foo", "foo", True), ("bar", "foo", False)],
    ids=["no host specified", "host matches", "host doesn't match"],
)
def test_filter_matches_upstream_table(pod_node_name, node, fits):
    status = run_filter(NodeName(), make_pod(node_name=pod_node_name), [make_node(node)])[node]
    if fits:
        assert status is None
    else:
        assert status.code is Code.UNRESOLVABLE
        assert status.reasons == (ERR_REASON,) == ("node(s) didn't match the requested node name",)
        assert status.why.en == "The pod's spec.nodeName is 'bar', so every other node is rejected."
        assert status.why.zh == "Pod 的 spec.nodeName 是 'bar'，因此其他节点一律不合格。"


def test_every_node_but_the_named_one_fails():
    nodes = [make_node(name) for name in ("n1", "n2", "n3")]
    result = run_filter(NodeName(), make_pod(node_name="n2"), nodes)
    assert [name for name, status in result.items() if status] == ["n1", "n3"]


def test_a_node_name_that_does_not_exist_rejects_all_nodes():
    result = run_filter(NodeName(), make_pod(node_name="ghost"), [make_node("n1"), make_node("n2")])
    assert all(status.reasons == (ERR_REASON,) for status in result.values())

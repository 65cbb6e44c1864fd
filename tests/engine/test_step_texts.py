"""Step 9's sentence: every node on a small cluster, the first few and the highest scores on a big one."""

from __future__ import annotations

from scheduler import texts
from tests.engine.builders import container, decide, make_node, make_pod

POD = make_pod("web", containers=[container(requests={"cpu": "500m", "memory": "256Mi"})])


def nodes(count: int) -> list[dict]:
    # Different sizes, so the resource priorities score them differently.
    return [
        make_node(f"node{i}", allocatable={"cpu": str(i), "memory": f"{i}Gi", "pods": "110"})
        for i in range(1, count + 1)
    ]


def test_a_small_cluster_names_every_node_and_every_score():
    decision = decide(POD, nodes(3))
    en, zh = texts.picked(POD, decision)
    scores = ", ".join(f"{name} {decision.totals[name]}" for name in ("node1", "node2", "node3"))
    assert f"Predicates: 3 of 3 nodes fit (node1, node2, node3); scores: {scores}." in en
    assert f"It picks {decision.selected}." in en
    assert f"3 个节点中 3 个满足条件（node1, node2, node3）；得分：{scores}。" in zh


def test_a_big_cluster_names_a_few_nodes_and_the_highest_scores():
    decision = decide(POD, nodes(40))
    en, zh = texts.picked(POD, decision)
    named = ", ".join(decision.feasible[: texts.NAMED_NODES])
    assert f"Predicates: 40 of 40 nodes fit ({named} and 34 more)" in en
    best = sorted(decision.totals.items(), key=lambda pair: -pair[1])[: texts.NAMED_NODES]
    assert best[0][0] == decision.selected  # the pick is the highest score: it is named
    listed = ", ".join(f"{name} {score}" for name, score in best)
    assert f"; highest scores: {listed} (34 more in the Scheduler panel). It picks {decision.selected}." in en
    assert f"（{named} 等 40 个）；得分最高：{listed}（其余 34 个见调度器面板）。" in zh
    assert zh.endswith(f"选中 {decision.selected}。")
    # One line of caption, not forty nodes twice.
    assert len(en) < 600 and en.count("node") < 20

"""The scheduler's sentences for steps 9 and 10 (english, chinese)."""

from __future__ import annotations

from cluster.flow.texts import ref


def picked(pod: dict, decision) -> tuple[str, str]:
    fit = decision.feasible
    total = len(decision.node_names)
    scores = ", ".join(f"{name} {decision.totals[name]}" for name in fit if name in decision.totals)
    scored = f"; scores: {scores}" if scores else ""
    scored_zh = f"；得分：{scores}" if scores else ""
    return (
        f"The Scheduler's watch delivers {ref(pod)} (spec.nodeName empty). Predicates: {len(fit)} of {total} "
        f"nodes fit ({', '.join(fit)}){scored}. It picks {decision.selected}.",
        f"Scheduler 监听到 {ref(pod)}（spec.nodeName 为空）。预选：{total} 个节点中 {len(fit)} 个满足条件"
        f"（{', '.join(fit)}）{scored_zh}。选中 {decision.selected}。",
    )


def unschedulable(pod: dict, message: str) -> tuple[str, str]:
    return (
        f"The Scheduler's watch delivers {ref(pod)}, but no node fits: {message} The pod stays Pending and "
        "is retried when something changes that could help.",
        f"Scheduler 监听到 {ref(pod)}，但没有合适的节点：{message} Pod 一直处于 Pending 状态，集群发生可能"
        "有帮助的变化时会不断重试调度，直到有节点满足条件。",
    )


def binding(pod: dict, node: str) -> tuple[str, str]:
    return (
        f"The Scheduler sends a Binding for {ref(pod)} to node {node} (POST pods/binding); the APIServer "
        "will save the Pod with spec.nodeName in etcd.",
        f"Scheduler 为 {ref(pod)} 创建 Binding，绑定到节点 {node}（POST pods/binding），APIServer 会把带有 "
        "spec.nodeName 的 Pod 信息更新至 etcd。",
    )

"""The scheduler's sentences for steps 9 and 10 (english, chinese)."""

from __future__ import annotations

from cluster.flow.texts import ref

# Nodes a step-9 sentence names before it counts the rest: a caption that lists a hundred nodes
# twice is read by nobody, and every page of the class receives it once per pod. The Scheduler
# panel (and `manage.py explain`) has every node's filters and scores.
NAMED_NODES = 6


def picked(pod: dict, decision) -> tuple[str, str]:
    fit = decision.feasible
    total = len(decision.node_names)
    totals = decision.totals  # a property: read once, not twice per node
    scored = [(name, totals[name]) for name in fit if name in totals]
    more = len(fit) - NAMED_NODES
    fit_en = ", ".join(fit[:NAMED_NODES]) + (f" and {more} more" if more > 0 else "")
    fit_zh = ", ".join(fit[:NAMED_NODES]) + (f" 等 {len(fit)} 个" if more > 0 else "")
    if len(scored) <= NAMED_NODES:
        scores = ", ".join(f"{name} {score}" for name, score in scored)
        scored_en = f"; scores: {scores}" if scores else ""
        scored_zh = f"；得分：{scores}" if scores else ""
    else:
        # The highest first (ties in the nodes' order): the ones the pick was made among.
        best = sorted(scored, key=lambda pair: -pair[1])[:NAMED_NODES]
        scores = ", ".join(f"{name} {score}" for name, score in best)
        rest = len(scored) - NAMED_NODES
        scored_en = f"; highest scores: {scores} ({rest} more in the Scheduler panel)"
        scored_zh = f"；得分最高：{scores}（其余 {rest} 个见调度器面板）"
    # A profile other than the default is named: its plugins and weights made this pick.
    profile = getattr(decision, "profile", "default-scheduler")
    by_en = "" if profile == "default-scheduler" else f" Profile {profile} decides."
    by_zh = "" if profile == "default-scheduler" else f"由调度配置 {profile} 决策。"
    return (
        f"The Scheduler's watch delivers {ref(pod)} (spec.nodeName empty).{by_en} Predicates: {len(fit)} of "
        f"{total} nodes fit ({fit_en}){scored_en}. It picks {decision.selected}.",
        f"Scheduler 监听到 {ref(pod)}（spec.nodeName 为空）。{by_zh}预选：{total} 个节点中 {len(fit)} "
        f"个满足条件（{fit_zh}）{scored_zh}。选中 {decision.selected}。",
    )


def unschedulable(pod: dict, message: str) -> tuple[str, str]:
    return (
        f"The Scheduler's watch delivers {ref(pod)}, but no node fits: {message} The pod stays Pending and "
        "is retried when something changes that could help.",
        f"Scheduler 监听到 {ref(pod)}，但没有合适的节点：{message} Pod 一直处于 Pending 状态，集群发生可能"
        "有帮助的变化时会不断重试调度，直到有节点满足条件。",
    )


def preempting(pod: dict, message: str, node: str, victims: list) -> tuple[str, str]:
    """Step 9 when no node fits but PostFilter (DefaultPreemption) nominated one: who is evicted
    where, so the pod fits there once they are gone."""
    names = ", ".join(f"{v.namespace}/{v.name} (priority {v.priority})" for v in victims)
    return (
        f"The Scheduler's watch delivers {ref(pod)}, but no node fits: {message} PostFilter "
        f"(DefaultPreemption) preempts: it nominates {node} and evicts the lower-priority "
        f"{names} there; once they are gone the pod is scheduled again (the Scheduler panel explains "
        "each candidate node and the tie-break).",
        f"Scheduler 监听到 {ref(pod)}，但没有合适的节点：{message} PostFilter（DefaultPreemption）发起"
        f"抢占：提名节点 {node}，并驱逐该节点上优先级更低的 {names}；它们删除后 Pod 会再次被调度"
        "（调度器面板解释了每个候选节点和决胜规则）。",
    )


def preempted_by(preemptor: dict, node: str) -> tuple[str, str]:
    """Why a victim goes: the higher-priority pod it makes room for (its trace's step 2, its ending)."""
    meta = preemptor.get("metadata") or {}
    who = f"{meta.get('namespace', 'default')}/{meta.get('name', '')}"
    priority = (preemptor.get("spec") or {}).get("priority") or 0
    return (
        f"preempted by pod {who} (priority {priority}) on {node}: the Scheduler's DefaultPreemption "
        "deletes it to make room",
        f"被 Pod {who}（优先级 {priority}）在 {node} 上抢占：Scheduler 的 DefaultPreemption 删除它以腾出空间",
    )


def binding(pod: dict, node: str) -> tuple[str, str]:
    return (
        f"The Scheduler sends a Binding for {ref(pod)} to node {node} (POST pods/binding); the APIServer "
        "will save the Pod with spec.nodeName in etcd.",
        f"Scheduler 为 {ref(pod)} 创建 Binding，绑定到节点 {node}（POST pods/binding），APIServer 会把带有 "
        "spec.nodeName 的 Pod 信息更新至 etcd。",
    )

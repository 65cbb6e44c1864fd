"""InterPodAffinity's plain-language explanations: filter failures and score arithmetic.

Built only for failures (once per topology domain) and for scores only when a node's explanation
is rendered.
"""

from __future__ import annotations

from typing import Any

from scheduler.engine.framework import Status, Why, unresolvable, unschedulable

NAME = "InterPodAffinity"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"


def explain_score(detail: Any, raw: int, normalized: int, weight: int) -> Why:
    """The topology pairs that gave the node its raw score, then the normalization."""
    parts, low, high = detail
    en_terms = "; ".join(
        f"{key}={value}: {total:+d} ({', '.join(_EN[kind](ref, path, d) for d, kind, ref, path in why)})"
        for key, value, total, why in parts
    )
    zh_terms = "；".join(
        f"{key}={value}：{total:+d}（{'，'.join(_ZH[kind](ref, path, d) for d, kind, ref, path in why)}）"
        for key, value, total, why in parts
    )
    en_terms = en_terms or "none of this node's topology domains gained or lost weight"
    zh_terms = zh_terms or "该节点所在的拓扑域都没有得分或扣分"
    if high > low:
        low_text = f"({low})" if low < 0 else str(low)
        formula = f"int(100·({raw} − {low_text})/({high} − {low_text})) = {normalized}"
        en_norm, zh_norm = formula, formula
    else:
        en_norm = f"every node has the same raw score, so {normalized}"
        zh_norm = f"所有节点原始得分相同，故为 {normalized}"
    return Why(
        f"{en_terms}; raw {raw}; normalized {en_norm}; ×{weight} = {normalized * weight}.",
        f"{zh_terms}；原始得分 {raw}；归一化 {zh_norm}；×{weight} = {normalized * weight}。",
    )


_EN = {
    "matches": lambda ref, path, d: f"{d:+d}: pod {ref} matches {path}",
    "requires": lambda ref, path, d: f"{d:+d}: {ref}'s {path} requires this pod nearby",
    "prefers": lambda ref, path, d: f"{d:+d}: {ref}'s {path} prefers this pod",
    "avoids": lambda ref, path, d: f"{d:+d}: {ref}'s {path} avoids this pod",
}
_ZH = {
    "matches": lambda ref, path, d: f"{d:+d}：Pod {ref} 匹配 {path}",
    "requires": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 要求本 Pod 在同一拓扑域",
    "prefers": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 偏好本 Pod",
    "avoids": lambda ref, path, d: f"{d:+d}：{ref} 的 {path} 避开本 Pod",
}


def missing_status(s: Any, path: str) -> Status:
    term = next(t for t in s.affinity if t.path == path)
    key = term.topology_key or '""'
    why = Why(
        f"This node has no label {key}, the topologyKey of the pod's {path}; a required pod affinity "
        "term can only be satisfied on nodes that carry its topology label.",
        f"该节点没有标签 {key}，而它是 Pod 的 {path} 的 topologyKey；"
        "必需的 Pod 亲和性只能在带有该拓扑标签的节点上满足。",
    )
    return unresolvable(NAME, ERR_REASON_AFFINITY, why)


def affinity_failure(s: Any, path: str, value: str) -> Status:
    term = next(t for t in s.affinity if t.path == path)
    domain = f"{term.topology_key}={value}"
    wanted = f"labelSelector {term.selector_text}, namespaces {term.namespaces_text}"
    elsewhere = sorted(
        f"{k}={v}" for (k, v), n in s.affinity_counts.items() if k == term.topology_key and n > 0
    )
    if elsewhere:
        en_tail = f" Pods matching every required term do run in {', '.join(elsewhere[:3])}."
        zh_tail = f"满足全部必需条件的 Pod 运行在 {', '.join(elsewhere[:3])}。"
    elif s.affinity_counts:
        en_tail = " Matching pods exist, but only in domains of another term's topologyKey."
        zh_tail = "匹配的 Pod 存在，但只在其他条件的拓扑域中。"
    else:
        en_tail = (
            " No pod in the cluster matches the terms yet, and the pod does not match its own terms, "
            "so the 'first pod of a group' exception does not apply."
        )
        zh_tail = "集群中还没有匹配的 Pod，且该 Pod 不匹配自己的条件，因此“同组第一个 Pod”的例外不适用。"
    why = Why(
        f"No pod matching the pod's {path} ({wanted}) runs in this node's domain {domain}.{en_tail}",
        f"该节点所在拓扑域 {domain} 中没有匹配 Pod 的 {path}（{wanted}）的 Pod。{zh_tail}",
    )
    return unresolvable(NAME, ERR_REASON_AFFINITY, why)


def anti_status(s: Any, key: str, value: str) -> Status:
    ref, node_name, term = s.examples[("anti", (key, value))]
    count = s.anti_counts[(key, value)]
    more = f" ({count} matching pods in this domain)" if count > 1 else ""
    why = Why(
        f"Pod {ref} on {node_name} (same {key} domain, {key}={value}) matches the pod's {term.path} "
        f"(labelSelector {term.selector_text}){more}.",
        f"{node_name} 上的 Pod {ref}（同一 {key} 拓扑域 {key}={value}）匹配 Pod 的 {term.path}"
        f"（labelSelector {term.selector_text}）。",
    )
    return unschedulable(NAME, ERR_REASON_ANTI_AFFINITY, why)


def existing_status(s: Any, key: str, value: str) -> Status:
    ref, node_name, term = s.examples[("existing", (key, value))]
    why = Why(
        f"Pod {ref} on {node_name} has {term.path} (labelSelector {term.selector_text}, topologyKey {key}) "
        f"which matches this pod, and this node is in the same domain {key}={value}.",
        f"{node_name} 上的 Pod {ref} 的 {term.path}（labelSelector {term.selector_text}，topologyKey {key}）"
        f"匹配本 Pod，而该节点与它同在拓扑域 {key}={value}。",
    )
    return unschedulable(NAME, ERR_REASON_EXISTING_ANTI_AFFINITY, why)


def parse_why(error: str) -> Why:
    return Why(
        f"The pod's spec.affinity has a label selector Kubernetes cannot parse: {error}",
        f"Pod 的 spec.affinity 中有 Kubernetes 无法解析的标签选择器：{error}",
    )

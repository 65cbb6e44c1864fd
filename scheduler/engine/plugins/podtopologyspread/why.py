"""PodTopologySpread's plain-language explanations: filter failures and score arithmetic.

Built only for failures (once per domain) and, for scores, only when a node's explanation is
rendered.
"""

from __future__ import annotations

from typing import Any

from scheduler.engine.framework import MAX_NODE_SCORE, Code, Status, Why, unresolvable, unschedulable
from scheduler.engine.podinfo import PodInfo

NAME = "PodTopologySpread"
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
PATH = "spec.topologySpreadConstraints"


def explain_score(detail: Any, raw: int, normalized: int, weight: int) -> Why:
    """Each constraint's count × weight + (maxSkew − 1), the rounding, then the normalization."""
    ignored, parts, total, low, high = detail
    tail_en = f"×{weight} = {normalized * weight}."
    tail_zh = f"×{weight} = {normalized * weight}。"
    if ignored:
        return Why(
            "This node lacks one of the constraints' topology keys, so it is left out and scores 0; "
            + tail_en,
            "该节点缺少某个约束的拓扑标签，不参与打分，得 0；" + tail_zh,
        )
    en = [
        f"{key}={value}: {count} matching pod(s) × ln({size}+2)={w:.3f} + (maxSkew {skew} − 1) = "
        f"{count * w + skew - 1:.3f}"
        for key, value, count, size, w, skew in parts
    ]
    zh = [
        f"{key}={value}：{count} 个匹配 Pod × ln({size}+2)={w:.3f} + (maxSkew {skew} − 1) = "
        f"{count * w + skew - 1:.3f}"
        for key, value, count, size, w, skew in parts
    ]
    if high == 0:
        norm = f"every scored node has raw 0, so {MAX_NODE_SCORE}"
        norm_zh = f"所有参与打分的节点原始得分都为 0，故为 {MAX_NODE_SCORE}"
    else:
        norm = norm_zh = f"100·({high} + {low} − {raw}) // {high} = {normalized}"
    return Why(
        f"{'; '.join(en)}; sum {total:.3f}, rounded {raw}; fewer matching pods score higher: "
        f"{norm}; {tail_en}",
        f"{'；'.join(zh)}；合计 {total:.3f}，四舍五入为 {raw}；匹配 Pod 越少得分越高：{norm_zh}；{tail_zh}",
    )


def error_status(message: str) -> Status:
    why = Why(
        f"A label selector in the pod's {PATH} cannot be parsed, so the scheduler gives up: {message}",
        f"Pod 的 {PATH} 中有无法解析的标签选择器，调度器放弃调度：{message}",
    )
    return Status(Code.ERROR, (message,), NAME, why)


def missing_label(s: Any, index: int) -> Status:
    c = s.constraints[index]
    why = Why(
        f"This node has no label {c.topology_key}, the topologyKey of {c.path}; a DoNotSchedule "
        "constraint only places pods on nodes that belong to one of its domains.",
        f"该节点没有标签 {c.topology_key}（{c.path} 的 topologyKey）；DoNotSchedule 约束只会把 Pod "
        "放到属于某个拓扑域的节点上。",
    )
    return unresolvable(NAME, ERR_REASON_NODE_LABEL_NOT_MATCH, why)


def skew(s: Any, index: int, value: str, pod: PodInfo) -> Status:
    c = s.constraints[index]
    counts = s.counts[index]
    count, own = counts.get(value, 0), int(c.selector(pod.labels))
    least = min_match(c, counts)
    key = c.topology_key
    if len(counts) < c.min_domains:
        floor_en = (
            f"only {len(counts)} eligible domain(s) < minDomains {c.min_domains}, so the minimum counts as 0"
        )
        floor_zh = f"合格的拓扑域只有 {len(counts)} 个，少于 minDomains {c.min_domains}，因此最小值按 0 计"
    else:
        smallest = sorted(v for v, n in counts.items() if n == least)[0]
        floor_en = f"the least-loaded domain {key}={smallest} has {least}"
        floor_zh = f"最空闲的拓扑域 {key}={smallest} 有 {least} 个"
    skew = count + own - least
    head = f"{c.path} (topologyKey {key}, maxSkew {c.max_skew}, labelSelector {c.selector_text})"
    why = Why(
        f"{head}: {key}={value} already has {count} matching pod(s), {floor_en}; placing the pod here makes "
        f"skew {count} + {own} − {least} = {skew} > {c.max_skew}.",
        f"{head}：{key}={value} 已有 {count} 个匹配的 Pod，{floor_zh}；放在这里偏差为 "
        f"{count} + {own} − {least} = {skew} > {c.max_skew}。",
    )
    return unschedulable(NAME, ERR_REASON_CONSTRAINTS_NOT_MATCH, why)


def min_match(c: Any, counts: dict[str, int]) -> int:
    """The global minimum; 0 while fewer domains than minDomains are eligible."""
    if len(counts) < c.min_domains:
        return 0
    return min(counts.values()) if counts else _MAX_INT32


_MAX_INT32 = 2**31 - 1  # newCriticalPaths' starting minimum

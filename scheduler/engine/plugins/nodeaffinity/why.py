"""NodeAffinity's plain-language explanations of filter failures.

Built only for failures, once per distinct combination of the label values the selectors read.
"""

from __future__ import annotations

from collections.abc import Mapping

from k8s.labels import SelectorError, requirement
from scheduler.engine.framework import Why
from scheduler.engine.node_selector import is_empty_term, parse_term

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
REQUIRED_PATH = f"spec.affinity.nodeAffinity.{REQUIRED}"
_TERMS_EXPLAINED = 3  # a failure explains at most this many terms, to keep the text readable


def node_selector_why(key: str, value: str, label: str | None) -> Why:
    """The node's `label` (None: it has none) is not the `value` the pod's nodeSelector asks for."""
    wanted = f"The pod's spec.nodeSelector asks for {key}={value}"
    wanted_zh = f"Pod 的 spec.nodeSelector 要求 {key}={value}"
    if label is None:
        return Why(
            f"{wanted}, but {{node}} has no {key} label.", f"{wanted_zh}，但节点 {{node}} 没有 {key} 标签。"
        )
    actual = f"{key}={label}"
    return Why(
        f"{wanted}, but {{node}}'s label is {actual}.", f"{wanted_zh}，但节点 {{node}} 的标签是 {actual}。"
    )


def required_why(raw: dict, labels: Mapping[str, str], node_name: str) -> Why:
    terms = raw.get("nodeSelectorTerms") or []
    if not terms:
        return Why(
            f"The pod's {REQUIRED_PATH} has no nodeSelectorTerms, and that matches no node.",
            f"Pod 的 {REQUIRED_PATH} 没有任何 nodeSelectorTerms，这不匹配任何节点。",
        )
    parts = [_term_failure(term, labels, node_name) for term in terms[:_TERMS_EXPLAINED]]
    more = "; …" if len(terms) > _TERMS_EXPLAINED else ""
    en = "; ".join(f"nodeSelectorTerms[{i}]: {text}" for i, (text, _) in enumerate(parts))
    zh = "；".join(f"nodeSelectorTerms[{i}]：{text}" for i, (_, text) in enumerate(parts))
    return Why(
        f"No term of the pod's {REQUIRED_PATH} matches {{node}} (terms are ORed, and everything inside "
        f"a term must hold). {en}{more}.",
        f"Pod 的 {REQUIRED_PATH} 中没有任何条件匹配节点 {{node}}（条件之间是“或”，条件内部必须全部成立）。"
        f"{zh}{more}。",
    )


def _term_failure(term: dict, labels: Mapping[str, str], node_name: str) -> tuple[str, str]:
    """Why one nodeSelectorTerm does not match: (English, Chinese)."""
    if is_empty_term(term):
        return "empty, so it matches no node", "为空，因此不匹配任何节点"
    try:
        parse_term(term)
    except SelectorError as err:
        return f"invalid ({err}), so it matches no node", f"无效（{err}），因此不匹配任何节点"
    for index, expr in enumerate(term.get("matchExpressions") or []):
        key, operator, values = expr.get("key", ""), expr.get("operator"), expr.get("values") or []
        if requirement(key, operator, values)(labels):
            continue
        shown = f"matchExpressions[{index}] {key} {operator}" + (f" [{', '.join(values)}]" if values else "")
        if key in labels:
            return (
                f"{shown} fails (the node has {key}={labels[key]})",
                f"{shown} 不成立（节点标签为 {key}={labels[key]}）",
            )
        return f"{shown} fails (the node has no {key} label)", f"{shown} 不成立（节点没有 {key} 标签）"
    for index, expr in enumerate(term.get("matchFields") or []):
        key, operator, value = expr.get("key", ""), expr.get("operator"), (expr.get("values") or [""])[0]
        actual = node_name if key == "metadata.name" else ""
        if (actual == value) != (operator == "In"):
            shown = f"matchFields[{index}] {key} {operator} [{value}]"
            return f"{shown} fails (the node is {node_name})", f"{shown} 不成立（该节点是 {node_name}）"
    return "matches", "匹配"

"""Label selectors printed as apimachinery prints them (sorted by key, values sorted)."""

from __future__ import annotations


def format_labels(labels: dict | None, empty: str = "<none>") -> str:
    """labels.FormatLabels: "app=web,tier=front", or "<none>"."""
    if not labels:
        return empty
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def _requirement(expr: dict) -> str:
    key, op = expr.get("key", ""), expr.get("operator", "")
    values = ",".join(sorted(expr.get("values") or []))
    return {
        "In": f"{key} in ({values})",
        "NotIn": f"{key} notin ({values})",
        "Exists": key,
        "DoesNotExist": f"!{key}",
    }.get(op, f"{key} {op} ({values})")


def format_label_selector(selector: dict | None, empty: str = "<none>") -> str:
    """metav1.FormatLabelSelector: "app=web,env in (a,b)", or `empty` for a nil/empty selector."""
    if not selector:
        return empty
    reqs = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    reqs += [(e.get("key", ""), _requirement(e)) for e in selector.get("matchExpressions") or []]
    text = ",".join(r for _, r in sorted(reqs, key=lambda kr: kr[0]))
    return text or empty

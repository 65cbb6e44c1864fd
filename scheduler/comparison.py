"""What changed between two explanations (`Decision.to_json()`): the real one and a what-if's, or
one pod under two profiles. The page highlights the same differences (static/kubesim/what_if.js)."""

from __future__ import annotations


def _first(node: dict) -> str | None:
    first = node.get("firstFailure")
    return None if first is None else f"{first['plugin']}: {', '.join(first['reasons'])}"


def compare(before: dict, after: dict) -> dict:
    """{"selected": [before, after] | None, "profile": [...] | None, "nodes": {name: {field: [before,
    after]}}} listing only what differs; `feasible`, `total` and `firstFailure` per node."""
    nodes: dict[str, dict] = {}
    for name in dict.fromkeys([*before["nodes"], *after["nodes"]]):
        old, new = before["nodes"].get(name) or {}, after["nodes"].get(name) or {}
        changed = {}
        for field, read in (
            ("feasible", lambda n: n.get("feasible")),
            ("total", lambda n: n.get("total")),
            ("firstFailure", _first),
        ):
            a, b = read(old), read(new)
            if a != b:
                changed[field] = [a, b]
        if changed:
            nodes[name] = changed
    return {
        "selected": None
        if before["selected"] == after["selected"]
        else [before["selected"], after["selected"]],
        "profile": None
        if before.get("profile") == after.get("profile")
        else [before.get("profile"), after.get("profile")],
        "nodes": nodes,
    }


def render(changes: dict) -> str:
    """The differences as text lines (the explain command's `--what-if` summary)."""
    lines = ["What changed (real → what-if):"]
    if changes["profile"]:
        lines.append(f"  profile: {changes['profile'][0]} → {changes['profile'][1]}")
    if changes["selected"]:
        old, new = (value or "(none)" for value in changes["selected"])
        lines.append(f"  selected node: {old} → {new}")
    for name, fields in changes["nodes"].items():
        for field, (old, new) in fields.items():
            lines.append(f"  {name} {field}: {_shown(old)} → {_shown(new)}")
    if len(lines) == 1:
        lines.append("  nothing: the same decision, node for node")
    return "\n".join(lines) + "\n"


def _shown(value: object) -> str:
    return "—" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

"""A compact stored form of a decision's explanation, expanded back to `Decision.to_json()` exactly.

The scheduler keeps every attempt's explanation. The full form repeats, for every node, every
passing and every skipped filter with its legacy names (about half a megabyte per attempt on 100
nodes). The compact form keeps per node only its failures, its scores and its total; skipped
filters and legacy names once; and the `{node}` explanation templates unrendered.
"""

from __future__ import annotations

from scheduler.engine.decision import Decision
from scheduler.engine.framework import Code, Status, Why
from scheduler.engine.legacy import legacy_names

FORMAT = 1


def _template(why: Why | None) -> list[str] | None:
    return None if why is None else [why.en, why.zh]


def _render(template: list[str] | None, node: str) -> dict[str, str] | None:
    if template is None:
        return None
    return {"en": template[0].replace("{node}", node), "zh": template[1].replace("{node}", node)}


def _cell(status: Status) -> list:
    return [status.code.value, list(status.reasons), _template(status.why)]


def _is_plain_success(status: Status) -> bool:
    return status.code is Code.SUCCESS and not status.reasons and status.why is None


def to_compact(decision: Decision) -> dict:
    """The decision in the compact form (JSON-serializable)."""
    nodes = {}
    for node in decision.node_names:
        failures = {}
        for plugin in decision.filters:
            status = decision.filter_status(plugin.name, node)
            if _is_plain_success(status) or status is decision.skipped_filters.get(plugin.name):
                continue
            failures[plugin.name] = _cell(status)
        first = decision.first_failure.get(node)
        entry: dict = {"f": failures, "t": decision.totals.get(node)}
        if first is not None:
            entry["first"] = [first.plugin, *_cell(first)]
        scores = {
            plugin.name: [raw, normalized, _template(why)]
            for plugin, _, raw, normalized, why in decision.score_cells(node)
        }
        if scores:
            entry["s"] = scores
        nodes[node] = entry
    result = decision.to_json_header()
    result.update(
        {
            "compact": FORMAT,
            "nodes": nodes,
            "filterLegacy": {plugin.name: legacy_names(plugin, "filter") for plugin in decision.filters},
            "skippedFilters": {name: _cell(status) for name, status in decision.skipped_filters.items()},
        }
    )
    return result


def expand(stored: dict) -> dict:
    """`Decision.to_json()` from the compact form; a full form is returned as it is."""
    if stored.get("compact") != FORMAT:
        return stored
    weights = {entry["name"]: (entry["weight"], entry["legacy"]) for entry in stored["scorePlugins"]}
    result = {key: value for key, value in stored.items() if key not in _COMPACT_ONLY}
    result["nodes"] = {
        node: _expand_node(node, entry, stored, weights) for node, entry in stored["nodes"].items()
    }
    return result


def _expand_node(node: str, entry: dict, stored: dict, weights: dict) -> dict:
    filters = {}
    for plugin in stored["filterPlugins"]:
        cell = entry["f"].get(plugin) or stored["skippedFilters"].get(plugin)
        code, reasons, why = cell if cell else ("Success", [], None)
        filters[plugin] = {
            "status": code,
            "reasons": list(reasons),
            "legacy": stored["filterLegacy"][plugin],
            "why": _render(why, node),
        }
    first = entry.get("first")
    scores = {}
    for plugin, (raw, normalized, why) in entry.get("s", {}).items():
        weight, legacy = weights[plugin]
        scores[plugin] = {
            "raw": raw,
            "normalized": normalized,
            "weight": weight,
            "weighted": normalized * weight,
            "legacy": legacy,
            "why": _render(why, node),
        }
    return {
        "feasible": first is None,
        "firstFailure": None
        if first is None
        else {
            "plugin": first[0],
            "status": first[1],
            "reasons": list(first[2]),
            "why": _render(first[3], node),
        },
        "filters": filters,
        "scores": scores,
        "total": entry["t"],
    }


_COMPACT_ONLY = ("compact", "filterLegacy", "skippedFilters", "nodes")

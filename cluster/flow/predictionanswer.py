"""A prediction round's answer: the node the scheduler picked and what decided it, read from the
scheduling attempt's explanation (the same Decision the Scheduler panel shows).

What decided, by the decision's shape:
- `score`: two or more nodes were scored; the plugins whose weighted score gave the winner its
  largest lead over the runner-up (the best-scored other node);
- `tie`: the best nodes scored the same; kube-scheduler picked one of them at random;
- `filter`: one node passed the filters; the plugins that filtered the others out decided;
- `none`: no node passed; the plugins that filtered them out, and the FailedScheduling message.
"""

from __future__ import annotations


def deciding(decision: dict) -> dict:
    nodes = decision.get("nodes") or {}
    selected = decision.get("selected") or None
    filtered = {
        name: {"plugin": result["firstFailure"]["plugin"], "reasons": result["firstFailure"]["reasons"]}
        for name, result in nodes.items()
        if result.get("firstFailure")
    }
    by_filter = sorted({why["plugin"] for why in filtered.values()})
    if not selected:
        return {
            "kind": "none",
            "plugins": by_filter,
            "filtered": filtered,
            "message": decision.get("message") or "",
        }
    scored = {name: result["total"] for name, result in nodes.items() if result.get("total") is not None}
    others = {name: total for name, total in scored.items() if name != selected}
    if not others:
        return {"kind": "filter", "plugins": by_filter, "filtered": filtered}
    runner_up = max(others, key=lambda name: (others[name], -list(nodes).index(name)))
    winner = {"node": selected, "total": scored.get(selected, 0)}
    second = {"node": runner_up, "total": others[runner_up]}
    if winner["total"] == second["total"]:
        tied = (decision.get("tie") or {}).get("nodes") or [selected, runner_up]
        return {"kind": "tie", "plugins": [], "nodes": tied, "winner": winner, "runner_up": second}
    lead = {}
    for plugin in decision.get("scorePlugins") or []:
        name = plugin["name"]
        mine = (nodes[selected]["scores"].get(name) or {}).get("weighted", 0)
        theirs = (nodes[runner_up]["scores"].get(name) or {}).get("weighted", 0)
        lead[name] = (mine, theirs)
    best = max(mine - theirs for mine, theirs in lead.values())
    plugins = [name for name, (mine, theirs) in lead.items() if mine - theirs == best and best > 0]
    return {
        "kind": "score",
        "plugins": plugins,
        "winner": winner,
        "runner_up": second,
        "scores": {name: {"winner": lead[name][0], "runner_up": lead[name][1]} for name in plugins},
    }

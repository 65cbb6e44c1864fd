"""Readable text tables of a scheduling decision (the explain command's default output)."""

from __future__ import annotations

NO_VICTIMS_TEXT = {
    "en": "No preemption victims found for incoming pod (no pod of lower priority there)",
    "zh": "No preemption victims found for incoming pod（该节点上没有更低优先级的 Pod）",
}
MARK = {"Success": "✓", "Skip": "–", "Unschedulable": "✗", "UnschedulableAndUnresolvable": "✗"}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _label(name: str, legacy: list[str]) -> str:
    return f"{name} ({'/'.join(legacy)})" if legacy else name


def render(result: dict, lang: str = "en") -> str:
    nodes = list(result["nodes"])
    profile = result.get("profile") or "default-scheduler"
    lines = [f"Pod {result['pod']} — profile {profile}", ""]
    lines += _filter_section(result, nodes, lang)
    lines += _score_section(result, nodes, lang)
    if result.get("nominatedFirst"):
        lines += [
            f"Nominated node {result['selected']} passes every filter: it is taken without scoring "
            "(kube-scheduler evaluates a pod's status.nominatedNodeName first).",
            "",
        ]
    if result.get("preemption"):
        lines += preemption_section(result["preemption"], lang)
    lines.append(f"Selected node: {result['selected'] or '(none)'}")
    if result.get("nominatedNode"):
        lines.append(f"Nominated node: {result['nominatedNode']} (status.nominatedNodeName)")
    if result["message"]:
        lines += ["", "Events (as kubectl describe pod shows them):"]
        lines.append(f"  Warning  FailedScheduling  {profile}  {result['message']}")
    return "\n".join(lines) + "\n"


def _filter_section(result: dict, nodes: list[str], lang: str) -> list[str]:
    lines = [
        "Filters (predicates) in profile order — ✓ pass, ✗ fail, – skipped at PreFilter, * first failure:"
    ]
    rows = []
    for plugin in result["filterPlugins"]:
        first_cell = result["nodes"][nodes[0]]["filters"][plugin] if nodes else {"legacy": []}
        row = [_label(plugin, first_cell["legacy"])]
        for node in nodes:
            info = result["nodes"][node]
            cell = MARK[info["filters"][plugin]["status"]]
            first = info["firstFailure"]
            row.append(cell + ("*" if first and first["plugin"] == plugin else ""))
        rows.append(row)
    lines += ["  " + line for line in _table(["PLUGIN", *nodes], rows)]
    lines.append("")
    for node in nodes:
        info = result["nodes"][node]
        failures = [(p, f) for p, f in info["filters"].items() if f["reasons"]]
        if not failures:
            continue
        lines.append(f"  {node}:")
        for plugin, failure in failures:
            star = "*" if info["firstFailure"] and info["firstFailure"]["plugin"] == plugin else " "
            lines.append(f"   {star} {plugin} [{failure['status']}]: {', '.join(failure['reasons'])}")
            if failure["why"]:
                lines.append(f"       why: {failure['why'][lang]}")
    if any(
        result["nodes"][n]["filters"][p]["status"] == "Skip"
        for n in nodes[:1]
        for p in result["filterPlugins"]
    ):
        lines.append("  Skipped at PreFilter:")
        for plugin in result["filterPlugins"]:
            cell = result["nodes"][nodes[0]]["filters"][plugin]
            if cell["status"] == "Skip":
                lines.append(f"    {plugin}: {cell['why'][lang] if cell['why'] else 'nothing to check'}")
    lines.append("")
    return lines


def _score_section(result: dict, nodes: list[str], lang: str) -> list[str]:
    scored = [node for node in nodes if result["nodes"][node]["scores"]]
    if not scored:
        feasible = result["feasibleNodes"]
        if len(feasible) == 1:
            return [f"Scores: only {feasible[0]} is feasible, so it is chosen without scoring.", ""]
        return ["Scores: no node is feasible, nothing to score.", ""]
    lines = ["Scores (priorities) — raw → normalized × weight = weighted:"]
    plugins = [p for p in result["scorePlugins"] if p["name"] in result["nodes"][scored[0]]["scores"]]
    rows = []
    for plugin in plugins:
        row = [f"{_label(plugin['name'], plugin['legacy'])} ×{plugin['weight']}"]
        for node in scored:
            s = result["nodes"][node]["scores"][plugin["name"]]
            row.append(f"{s['raw']}→{s['normalized']}×{s['weight']}={s['weighted']}")
        rows.append(row)
    rows.append(["TOTAL", *[str(result["nodes"][node]["total"]) for node in scored]])
    lines += ["  " + line for line in _table(["PLUGIN", *scored], rows)]
    for name, why in result["skippedScores"].items():
        lines.append(f"  {name}: skipped at PreScore — {why[lang] if why else 'nothing to score'}")
    lines += ["", "  Arithmetic:"]
    for node in scored:
        for plugin in plugins:
            lines.append(
                f"    {node} {plugin['name']}: {result['nodes'][node]['scores'][plugin['name']]['why'][lang]}"
            )
    lines += _not_scored(result, lang)
    tie = result["tie"]
    if tie["mattered"]:
        lines += ["", f"  Tie at the top between {', '.join(tie['nodes'])}: {tie['why'][lang]}"]
    lines.append("")
    return lines


NOT_SCORED = {
    "en": "not scored: percentageOfNodesToScore — the search stopped after {count} feasible node(s) "
    "({percentage}% of the nodes)",
    "zh": "未打分：percentageOfNodesToScore —— 找到 {count} 个可行节点"
    "（节点总数的 {percentage}%）后即停止搜索",
}


def _not_scored(result: dict, lang: str) -> list[str]:
    skipped = result.get("notScored") or []
    if not skipped:
        return []
    text = NOT_SCORED[lang].format(**result["nodesToFind"])
    return ["", f"  {', '.join(skipped)}: {text}"]


def preemption_section(preemption: dict, lang: str = "en") -> list[str]:
    """DefaultPreemption (PostFilter): each candidate node's victims and reprieves, and the pick."""
    lines = ["Preemption (DefaultPreemption PostFilter):"]
    if not preemption["eligible"]:
        lines += [f"  {preemption['message']}", ""]
        return lines
    lines.append(
        f"  {preemption['potentialNodes']} node(s) failed with Unschedulable (preemption may help); "
        f"dry run from offset {preemption['offset']}, wanting {preemption['wantedCandidates']} candidate(s)."
    )
    for run in [*preemption["candidates"], *preemption["nodes"].values()]:
        if run["candidate"]:
            head = f"candidate, {len(run['victims'])} victim(s), {run['numPDBViolations']} PDB violation(s)"
        elif run["dropped"]:
            head = "could make room, but enough candidates of its kind were already found"
        else:
            head = f"not a candidate: {', '.join(run['reasons'])}"
        lines.append(f"  {run['node']}: {head}")
        if run["why"] and not run["candidate"]:
            lines.append(f"      why: {run['why'][lang]}")
        for step in run["steps"]:
            mark = "✗ victim   " if step["result"] == "victim" else "✓ reprieved"
            lines.append(f"      {mark} {step['pod']} (priority {step['priority']}): {step['why'][lang]}")
    if preemption.get("noVictims"):
        lines.append(f"  {', '.join(preemption['noVictims'])}: not a candidate: {NO_VICTIMS_TEXT[lang]}")
    for criterion in preemption["criteria"]:
        scores = ", ".join(f"{node}={score}" for node, score in criterion["scores"].items())
        lines.append(f"  {criterion['criterion']}: {scores} → kept {', '.join(criterion['kept'])}")
    if preemption["nominatedNode"]:
        lines.append(
            f"  Nominated {preemption['nominatedNode']}, decided by {preemption['decidedBy']}: "
            f"{preemption['decidedByWhy'][lang]}"
        )
        victims = ", ".join(v["pod"] for v in preemption["victims"])
        lines.append(f"  Victims to evict: {victims}")
    else:
        lines.append(f"  {preemption['message']}")
    lines.append("")
    return lines

"""`kubectl top node|pod` in the console: the metrics API's figures (cluster/api/resource_metrics.py)
printed as kubectl v1.33's top printer prints them (metricsutil/metrics_printer.go: CPU as
MilliValue, memory in whole Mi, percentages of allocatable truncated; its sorters; its errors)."""

from __future__ import annotations

import math
from datetime import datetime
from fractions import Fraction

from cluster.api.resource_metrics import node_metrics, pod_metrics
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, UsageError
from dashboard.console.result import ConsoleResult
from k8s import clock
from k8s.quantity import parse_quantity

# kubectl's metricsCreationDelay: younger pods without metrics are "not available yet".
METRICS_CREATION_DELAY = 120.0


def _exact(quantity: str | Fraction) -> Fraction:
    return quantity if isinstance(quantity, Fraction) else parse_quantity(quantity)


def _milli(quantity: str | Fraction) -> int:
    return math.ceil(_exact(quantity) * 1000)  # Quantity.MilliValue rounds up


def _value(quantity: str | Fraction) -> int:
    return math.ceil(_exact(quantity))


def _cpu(quantity: str | Fraction) -> str:
    return f"{_milli(quantity)}m"


def _memory(quantity: str | Fraction) -> str:
    return f"{_value(quantity) // (1024 * 1024)}Mi"


def _percent(used: str, available: str | None) -> str:
    total = _milli(available) if available else 0
    return f"{int(_milli(used) / total * 100) if total else 0}%"


def _tabwrite(rows: list[list[str]]) -> str:
    """kubectl's printers.GetNewTabWriter (minwidth 6, padding 3) over lines whose every cell ends
    with a tab, as the top printer writes them: every column padded, the last one too."""
    if not rows:
        return ""
    widths = [max(6, max(len(r[i]) for r in rows) + 3) for i in range(len(rows[0]))]
    return "".join("".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + "\n" for row in rows)


def _sort_by(cmd: CommandLine) -> str:
    sort_by = cmd.flag("sort_by")
    if sort_by and sort_by not in ("cpu", "memory"):
        raise UsageError("error: --sort-by accepts only cpu or memory")
    return sort_by


def _usage_key(sort_by: str, usage: dict) -> int:
    return -_milli(usage["cpu"]) if sort_by == "cpu" else -_value(usage["memory"])


def top_node(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    sort_by, selector = _sort_by(cmd), cmd.flag("selector")
    name = cmd.args[0] if cmd.args else ""
    if name and selector:
        raise UsageError("error: only one of NAME or --selector can be provided")
    metrics = node_metrics(ctx.cluster, name, selector)
    if not metrics:
        raise UsageError("error: metrics not available yet")
    nodes = [ctx.client.get("Node", "", name)] if name else ctx.client.list("Node", label_selector=selector)
    allocatable = {n["metadata"]["name"]: (n.get("status") or {}).get("allocatable") or {} for n in nodes}
    if sort_by:
        metrics.sort(key=lambda m: _usage_key(sort_by, m["usage"]))
    rows = (
        []
        if cmd.flags.get("no_headers")
        else [["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]]
    )
    for m in metrics:
        usage, available = m["usage"], allocatable.pop(m["metadata"]["name"], None)
        row = [m["metadata"]["name"], _cpu(usage["cpu"])]
        if available is not None:
            row.append(_percent(usage["cpu"], available.get("cpu")))
        row.append(_memory(usage["memory"]))
        if available is not None:
            row.append(_percent(usage["memory"], available.get("memory")))
        rows.append(row)
    rows += [[node, "<unknown>", "<unknown>", "<unknown>", "<unknown>"] for node in sorted(allocatable)]
    return ConsoleResult(_tabwrite(rows))


def _pod_total(pod: dict) -> dict:
    """getPodMetrics: the containers' usages added."""
    cpu = sum((parse_quantity(c["usage"]["cpu"]) for c in pod["containers"]), Fraction(0))
    memory = sum((parse_quantity(c["usage"]["memory"]) for c in pod["containers"]), Fraction(0))
    return {"cpu": cpu, "memory": memory}


def _go_age(seconds: float) -> str:
    """time.Duration's String: 2m36.123456s (to the microsecond: the console's clock)."""
    minutes, rest = divmod(max(seconds, 0.0), 60)
    hours, minutes = divmod(int(minutes), 60)
    text = f"{rest:.6f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{hours}h{minutes}m{text}"
    return f"{minutes}m{text}" if minutes else text


def _why_empty(ctx: Context, cmd: CommandLine, namespace: str | None) -> str:
    """verifyEmptyMetrics: a pod old enough that should have metrics, or not yet; "" if no pods."""
    pods = ctx.client.list(
        "Pod", namespace, label_selector=cmd.flag("selector"), field_selector=cmd.flag("field_selector")
    )
    now = clock.now()
    for pod in pods:
        created = datetime.fromisoformat(pod["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
        age = (now - created).total_seconds()
        if age > METRICS_CREATION_DELAY:
            where = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
            return f"error: Metrics not available for pod {where}, age: {_go_age(age)}"
    return "error: metrics not available yet" if pods else ""


def top_pod(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    sort_by, selector, fields = _sort_by(cmd), cmd.flag("selector"), cmd.flag("field_selector")
    name = cmd.args[0] if cmd.args else ""
    if name and (selector or fields):
        raise UsageError("error: only one of NAME or selector can be provided")
    everywhere = bool(cmd.flags.get("all_namespaces"))
    namespace = "" if everywhere else cmd.namespace
    metrics = pod_metrics(ctx.cluster, namespace, name, selector, fields)
    if not metrics:
        why = _why_empty(ctx, cmd, None if everywhere else namespace)
        if why:
            raise UsageError(why)
        return ConsoleResult(
            "No resources found\n" if everywhere else f"No resources found in {namespace} namespace.\n"
        )
    containers = bool(cmd.flags.get("containers"))
    if sort_by:
        metrics.sort(key=lambda m: _usage_key(sort_by, _pod_total(m)))
    elif everywhere:
        metrics.sort(key=lambda m: (m["metadata"]["namespace"], m["metadata"]["name"]))
    header = (["NAMESPACE"] if everywhere else []) + (["POD"] if containers else [])
    rows = [] if cmd.flags.get("no_headers") else [[*header, "NAME", "CPU(cores)", "MEMORY(bytes)"]]
    for m in metrics:
        lead = [m["metadata"]["namespace"]] if everywhere else []
        if containers:
            listed = m["containers"]
            listed = sorted(listed, key=lambda c: _usage_key(sort_by, c["usage"]) if sort_by else c["name"])
            for c in listed:
                rows.append(
                    [
                        *lead,
                        m["metadata"]["name"],
                        c["name"],
                        _cpu(c["usage"]["cpu"]),
                        _memory(c["usage"]["memory"]),
                    ]
                )
        else:
            total = _pod_total(m)
            rows.append([*lead, m["metadata"]["name"], _cpu(total["cpu"]), _memory(total["memory"])])
    return ConsoleResult(_tabwrite(rows))

"""Evaluate a step's checks against a sandbox, with student-facing messages in English and Chinese.

Checks read cluster state only through `cluster.apiserver`'s reads (get, list_items), the
scheduler's recorded attempts and the flow's recorded steps. Each evaluator returns whether the
check holds, what it expects and what it found; a failure shows the instructor's own message
when the lab gives one, else the expectation, and always what was found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cluster.apiserver import service as api
from cluster.models import Cluster
from labs import probes
from labs.labmodel import Check, Step, Text
from labs.paths import MISSING, parse_path, resolve


@dataclass(frozen=True, slots=True)
class Outcome:
    passed: bool
    expected: Text
    found: Text
    hint: Text | None = None  # a hint that covers exactly what was found (a known wrong answer)


@dataclass(frozen=True, slots=True)
class CheckResult:
    passed: bool
    message: Text  # empty when passed
    found: Text
    hint: Text | None = None  # the hint that covers this failure, if the lab has one

    def as_dict(self) -> dict:
        shown = {"passed": self.passed, "message": self.message.as_dict(), "found": self.found.as_dict()}
        if self.hint is not None:
            shown["hint"] = self.hint.as_dict()
        return shown


class Probe:
    """One evaluation's reads, memoized so that several checks share the queries."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._cache: dict[tuple, object] = {}
        # The kinds read (None: something else too, e.g. flow steps or scheduling attempts): only
        # a write of one of them can change the result (labs/grader.py skips the other churn).
        self.kinds: set[str] | None = set()

    def reads_beyond_objects(self) -> None:
        self.kinds = None

    def _reading(self, kind: str) -> None:
        if self.kinds is not None:
            self.kinds.add(kind)

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        self._reading(kind)
        key = ("get", kind, namespace, name)
        if key not in self._cache:
            try:
                self._cache[key] = api.get(self.cluster, kind, namespace, name)
            except api.ApiError as exc:
                if exc.code != 404:
                    raise
                self._cache[key] = None
        return self._cache[key]

    def list(self, kind: str, namespace: str | None = None, selector: str = "") -> list[dict]:
        self._reading(kind)
        key = ("list", kind, namespace, selector)
        if key not in self._cache:
            self._cache[key] = api.list_items(self.cluster, kind, namespace, label_selector=selector)
        return self._cache[key]


def show(value: object) -> str:
    if value is MISSING:
        return "(not set)"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _ns(check: Check) -> str:
    return check.params.get("namespace") or "default"


def _object(probe: Probe, check: Check) -> tuple[str, str, dict | None]:
    kind, name = check.params["kind"], check.params["name"]
    return kind, name, probe.get(kind, _ns(check), name)


def _missing(kind: str, name: str) -> Text:
    return Text(f"There is no {kind} named {name}.", f"没有名为 {name} 的 {kind}。")


def exists(probe: Probe, check: Check, answer: str) -> Outcome:
    kind, name, obj = _object(probe, check)
    found = Text(f"{kind} {name} exists.", f"{kind} {name} 已存在。") if obj else _missing(kind, name)
    return Outcome(obj is not None, Text(f"{kind} {name} should exist.", f"{kind} {name} 应当存在。"), found)


def absent(probe: Probe, check: Check, answer: str) -> Outcome:
    kind, name, obj = _object(probe, check)
    found = Text(f"{kind} {name} still exists.", f"{kind} {name} 仍然存在。") if obj else _missing(kind, name)
    return Outcome(
        obj is None, Text(f"{kind} {name} should be gone.", f"{kind} {name} 应当已被删除。"), found
    )


def _field(probe: Probe, check: Check, wanted: str, test) -> Outcome:
    kind, name, obj = _object(probe, check)
    path = check.params["path"]
    expected = Text(
        f"{kind} {name}: {path} should be {wanted}.", f"{kind} {name} 的 {path} 应当是 {wanted}。"
    )
    if obj is None:
        return Outcome(False, expected, _missing(kind, name))
    value = resolve(obj, parse_path(path))
    found = Text(f"{path} is {show(value)}.", f"{path} 当前是 {show(value)}。")
    return Outcome(value is not MISSING and test(value), expected, found)


def field_equals(probe: Probe, check: Check, answer: str) -> Outcome:
    want = check.params["value"]
    return _field(probe, check, show(want), lambda value: value == want or show(value) == show(want))


def field_matches(probe: Probe, check: Check, answer: str) -> Outcome:
    pattern = check.params["pattern"]
    return _field(probe, check, f"/{pattern}/", lambda value: re.search(pattern, show(value)) is not None)


def _pod(probe: Probe, check: Check) -> tuple[str, dict | None]:
    name = check.params["pod"]
    return name, probe.get("Pod", _ns(check), name)


def pod_phase(probe: Probe, check: Check, answer: str) -> Outcome:
    name, pod = _pod(probe, check)
    phase = check.params["phase"]
    expected = Text(f"Pod {name} should be {phase}.", f"Pod {name} 应当处于 {phase} 状态。")
    if pod is None:
        return Outcome(False, expected, _missing("Pod", name))
    actual = pod.get("status", {}).get("phase", "Pending")
    reason = probes.waiting_reason(pod)
    more = f" ({reason})" if reason else ""
    return Outcome(actual == phase, expected, Text(f"It is {actual}{more}.", f"它当前是 {actual}{more}。"))


def pod_on_node(probe: Probe, check: Check, answer: str) -> Outcome:
    name, pod = _pod(probe, check)
    node, label = check.params.get("node"), check.params.get("nodeLabel")
    where = node or f"a node labelled {label}"
    expected = Text(
        f"Pod {name} should run on {where}.", f"Pod {name} 应当运行在{node or f'带有标签 {label} 的节点'}上。"
    )
    if pod is None:
        return Outcome(False, expected, _missing("Pod", name))
    bound = pod.get("spec", {}).get("nodeName") or ""
    if not bound:
        return Outcome(
            False, expected, Text(f"Pod {name} is not scheduled yet.", f"Pod {name} 还没有被调度。")
        )
    found = Text(f"It is on {bound}.", f"它在 {bound} 上。")
    if node:
        return Outcome(bound == node, expected, found)
    node_obj = probe.get("Node", "", bound) or {}
    return Outcome(probes.has_label(node_obj, label), expected, found)


def pod_pending(probe: Probe, check: Check, answer: str) -> Outcome:
    name, pod = _pod(probe, check)
    text = check.params.get("messageContains", "")
    extra = f" with a FailedScheduling message containing “{text}”" if text else ""
    expected = Text(
        f"Pod {name} should be Pending, not scheduled{extra}.",
        f"Pod {name} 应当处于 Pending 且未被调度"
        + (f"，FailedScheduling 消息包含“{text}”。" if text else "。"),
    )
    if pod is None:
        return Outcome(False, expected, _missing("Pod", name))
    if pod.get("spec", {}).get("nodeName"):
        bound = pod["spec"]["nodeName"]
        return Outcome(False, expected, Text(f"It was scheduled to {bound}.", f"它已被调度到 {bound}。"))
    message = probes.unschedulable_message(probe, pod)
    if not message:
        return Outcome(
            False, expected, Text("The scheduler has not reported on it yet.", "调度器还没有给出结果。")
        )
    return Outcome(
        text in message, expected, Text(f"FailedScheduling: {message}", f"FailedScheduling：{message}")
    )


def node_label(probe: Probe, check: Check, answer: str) -> Outcome:
    node, label = check.params["node"], check.params["label"]
    expected = Text(f"Node {node} should have the label {label}.", f"节点 {node} 应当带有标签 {label}。")
    obj = probe.get("Node", "", node)
    if obj is None:
        return Outcome(False, expected, _missing("Node", node))
    labels = ",".join(f"{k}={v}" for k, v in sorted(obj["metadata"].get("labels", {}).items()))
    found = Text(f"Its labels: {labels or '(none)'}.", f"它的标签：{labels or '（无）'}。")
    return Outcome(probes.has_label(obj, label), expected, found)


def node_taint(probe: Probe, check: Check, answer: str) -> Outcome:
    node, params = check.params["node"], check.params
    shown = probes.taint_text(params["key"], params.get("value"), params.get("effect"))
    expected = Text(f"Node {node} should have the taint {shown}.", f"节点 {node} 应当带有污点 {shown}。")
    obj = probe.get("Node", "", node)
    if obj is None:
        return Outcome(False, expected, _missing("Node", node))
    taints = obj.get("spec", {}).get("taints") or []
    listed = ", ".join(probes.taint_text(t.get("key"), t.get("value"), t.get("effect")) for t in taints)
    found = Text(f"Its taints: {listed or '(none)'}.", f"它的污点：{listed or '（无）'}。")
    return Outcome(any(probes.taint_matches(t, params) for t in taints), expected, found)


def pod_count(probe: Probe, check: Check, answer: str) -> Outcome:
    p = check.params
    pods = [pod for pod in probe.list("Pod", _ns(check), p["selector"]) if probes.pod_matches(pod, p)]
    nodes = {pod.get("spec", {}).get("nodeName") for pod in pods} - {None, ""}
    expected = probes.count_expectation(p)
    found = Text(
        f"Found {len(pods)} matching pod(s) on {len(nodes)} node(s).",
        f"找到 {len(pods)} 个匹配的 Pod，分布在 {len(nodes)} 个节点上。",
    )
    return Outcome(probes.count_ok(p, len(pods), len(nodes)), expected, found)


def event(probe: Probe, check: Check, answer: str) -> Outcome:
    p = check.params
    expected = probes.event_expectation(p)
    matching = [e for e in probe.list("Event", p.get("namespace")) if probes.event_matches(e, p)]
    if matching:
        latest = matching[-1]
        return Outcome(True, expected, Text(latest.get("message", ""), latest.get("message", "")))
    return Outcome(False, expected, Text("No such event yet.", "还没有这样的事件。"))


def scheduling_failure(probe: Probe, check: Check, answer: str) -> Outcome:
    p = check.params
    pod, plugin, node = p["pod"], p["plugin"], p["node"]
    expected = Text(
        f"The scheduler's latest attempt for pod {pod} should show {plugin} rejecting {node}.",
        f"调度器对 Pod {pod} 的最近一次尝试应当显示 {plugin} 过滤掉了 {node}。",
    )
    probe.reads_beyond_objects()  # the scheduler's attempts
    explanation = probes.latest_attempt(probe.cluster, _ns(check), pod)
    if explanation is None:
        return Outcome(
            False, expected, Text(f"No scheduling attempt for pod {pod} yet.", f"Pod {pod} 还没有调度记录。")
        )
    result = explanation.get("nodes", {}).get(node, {}).get("filters", {}).get(plugin)
    status = result.get("status") if result else "(not evaluated)"
    found = Text(f"{plugin} on {node}: {status}.", f"{plugin} 在 {node} 上：{status}。")
    return Outcome(status in ("Unschedulable", "UnschedulableAndUnresolvable"), expected, found)


def flow_complete(probe: Probe, check: Check, answer: str) -> Outcome:
    kind, name = check.params["kind"], check.params["name"]
    step = check.params.get("step", 13)
    expected = Text(
        f"The list-watch flow for {kind} {name} should reach step {step}.",
        f"{kind} {name} 的 List-Watch 流程应当走到第 {step} 步。",
    )
    probe.reads_beyond_objects()  # the flow's steps
    reached = probes.flow_reached(probe.cluster, kind, _ns(check), name)
    found = Text(f"The furthest step so far: {reached or 'none'}.", f"目前走到：第 {reached or 0} 步。")
    return Outcome(reached >= step, expected, found)


def _matches(patterns, answer: str) -> bool:
    return any(re.fullmatch(rx, answer, re.IGNORECASE) for rx in patterns)


def answer_check(probe: Probe, check: Check, answer: str) -> Outcome:
    question, given = check.params["question"], answer.strip()
    found = Text(f"Your answer: {answer or '(none)'}", f"你的回答：{answer or '（无）'}")
    if given and _matches(check.params["accept"], given):
        return Outcome(True, question, found)
    if not given:
        return Outcome(False, question, found)
    # Say what was checked rather than repeat the question; a known wrong answer gets its hint.
    checked = Text(
        f"Checked your answer to “{question.en}”: it is not one of the accepted answers.",
        f"已检查你对“{question.zh}”的回答：它不是可接受的答案。",
    )
    hint = next((hint for answers, hint in check.params.get("wrong", ()) if _matches(answers, given)), None)
    return Outcome(False, checked, found, hint)


EVALUATORS = {
    "exists": exists,
    "absent": absent,
    "fieldEquals": field_equals,
    "fieldMatches": field_matches,
    "podPhase": pod_phase,
    "podOnNode": pod_on_node,
    "podPending": pod_pending,
    "nodeLabel": node_label,
    "nodeTaint": node_taint,
    "podCount": pod_count,
    "event": event,
    "schedulingFailure": scheduling_failure,
    "flowComplete": flow_complete,
    "answer": answer_check,
}


def run_check(probe: Probe, check: Check, answer: str = "") -> CheckResult:
    outcome = EVALUATORS[check.type](probe, check, answer)
    passed = outcome.passed != check.negate
    if passed:
        return CheckResult(True, Text("", ""), outcome.found)
    expected = outcome.expected
    if check.negate:
        expected = Text(f"This should no longer hold: {expected.en}", f"这一条应当不再成立：{expected.zh}")
    return CheckResult(False, check.message or expected, outcome.found, outcome.hint or check.hint)


def run_step(cluster: Cluster, step: Step, answer: str = "", probe: Probe | None = None) -> list[CheckResult]:
    """Every check of `step`, in order, sharing one probe (a new one unless given)."""
    probe = probe or Probe(cluster)
    return [run_check(probe, check, answer) for check in step.checks]

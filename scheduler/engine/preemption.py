"""DefaultPreemption, the PostFilter that runs when no node is feasible (kube-scheduler v1.33).

Upstream's framework/preemption/preemption.go (Evaluator.Preempt, DryRunPreemption,
pickOneNodeForPreemption) and plugins/defaultpreemption/default_preemption.go
(SelectVictimsOnNode, PodEligibleToPreemptOthers, filterPodsWithPDBViolation), step by step:

1. Eligibility: `preemptionPolicy: Never`, or a lower-priority pod on the pod's nominated node
   already terminating because of preemption, ends it here.
2. Potential nodes: those whose filter status is Unschedulable (never UnschedulableAndUnresolvable).
3. Dry run, node by node from an offset: remove every lower-priority pod; if the pod still does not
   fit, the node is out; else add them back most important first (PDB-violating ones first) and
   keep each that does not break the fit; the rest are the victims. The dry run stops once it has
   enough candidates (10% of the potential nodes, at least 100) and one of them violates no PDB.
4. The node is picked by the ordered criteria; the pod is nominated to it.

The cluster's snapshot is changed while a node is dry-run and restored exactly afterwards.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from k8s.labels import SelectorError, label_selector
from scheduler.engine.fit_error import (
    NO_VICTIMS,
    PREEMPT_NEVER,
    PREEMPTION_NOT_HELPFUL,
    histogram_message,
)
from scheduler.engine.framework import Code, CycleState, PreFilterResult, Status, Why
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot

MIN_CANDIDATE_NODES_PERCENTAGE = 10  # DefaultPreemptionArgs defaults
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_INT32 = 2**31 - 1
TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."
NOT_HELPFUL = Status(Code.UNRESOLVABLE, (PREEMPTION_NOT_HELPFUL,))
_LATEST = datetime.max  # a pod without status.startTime counts as started "now": later than all


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    """What preemption reads of a policy/v1 PodDisruptionBudget."""

    name: str
    namespace: str
    selector: dict | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()

    @classmethod
    def of(cls, obj: dict) -> PodDisruptionBudget:
        meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
        return cls(
            name=meta.get("name") or "",
            namespace=meta.get("namespace") or "default",
            selector=spec.get("selector"),
            disruptions_allowed=int(status.get("disruptionsAllowed") or 0),
            disrupted_pods=frozenset(status.get("disruptedPods") or {}),
        )

    def selects(self, pod: PodInfo) -> bool:
        """A nil or empty selector matches nothing; an invalid one matches nothing either."""
        if self.namespace != pod.namespace or not self.selector:
            return False
        try:
            return label_selector(self.selector)(pod.labels)
        except SelectorError:
            return False


@dataclass(slots=True)
class VictimStep:
    """One lower-priority pod of a node, as the reprieve loop reconsidered it."""

    pod: PodInfo
    violates_pdb: bool
    victim: bool
    why: Why

    def to_json(self) -> dict:
        return {
            "pod": self.pod.key,
            "priority": self.pod.priority,
            "startTime": _start_text(self.pod),
            "violatesPDB": self.violates_pdb,
            "result": "victim" if self.victim else "reprieved",
            "why": self.why.as_dict(),
        }


@dataclass(slots=True)
class NodeDryRun:
    node: str
    status: Status | None  # None: the node is a candidate
    victims: list[PodInfo] = field(default_factory=list)  # most important first
    num_pdb_violations: int = 0
    steps: list[VictimStep] = field(default_factory=list)
    why: Why | None = None
    dropped: bool = False  # could make room, but enough candidates of its kind were already found

    @property
    def is_candidate(self) -> bool:
        return self.status is None and not self.dropped

    def to_json(self) -> dict:
        return {
            "node": self.node,
            "candidate": self.is_candidate,
            "dropped": self.dropped,
            "status": None if self.status is None else self.status.code.value,
            "reasons": [] if self.status is None else list(self.status.reasons),
            "victims": [_victim_json(pod) for pod in self.victims],
            "numPDBViolations": self.num_pdb_violations,
            "steps": [step.to_json() for step in self.steps],
            "why": self.why.as_dict() if self.why else None,
        }


@dataclass(slots=True)
class Criterion:
    name: str
    scores: dict[str, int]
    kept: list[str]
    values: dict[str, object] = field(default_factory=dict)  # each node's figure as a class reads it


@dataclass(slots=True)
class Preemption:
    eligible: bool
    message: str = ""  # DefaultPreemption's PostFilter message; empty when a node was nominated
    nominated_node: str | None = None
    dry_runs: list[NodeDryRun] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)  # non-violating first, then violating
    criteria: list[Criterion] = field(default_factory=list)
    decided_by: str | None = None
    potential_nodes: int = 0
    wanted_candidates: int = 0
    offset: int = 0

    @property
    def victims(self) -> list[PodInfo]:
        for run in self.dry_runs:
            if run.node == self.nominated_node:
                return run.victims
        return []

    def to_json(self) -> dict:
        return {
            "eligible": self.eligible,
            "message": self.message,
            "nominatedNode": self.nominated_node,
            "victims": [_victim_json(pod) for pod in self.victims],
            "candidates": [run.to_json() for run in self.dry_runs if run.is_candidate],
            # Nodes with no lower-priority pod at all are only named: a big cluster of equal
            # priorities would otherwise repeat the same verdict for every node.
            "noVictims": [run.node for run in self.dry_runs if _no_victims(run)],
            "nodes": {
                run.node: run.to_json()
                for run in self.dry_runs
                if not run.is_candidate and not _no_victims(run)
            },
            "decidedBy": self.decided_by,
            "decidedByWhy": DECIDED_BY[self.decided_by].as_dict() if self.decided_by else None,
            "criteria": [
                {
                    "criterion": c.name,
                    "scores": c.scores,
                    "kept": c.kept,
                    "why": DECIDED_BY[c.name].as_dict(),
                    # The same comparison in a class's words: the figure itself, not upstream's
                    # negated (and 2^31-shifted) score.
                    "label": CRITERION_LABELS[c.name],
                    "values": c.values,
                }
                for c in self.criteria
            ],
            "potentialNodes": self.potential_nodes,
            "wantedCandidates": self.wanted_candidates,
            "offset": self.offset,
        }


DECIDED_BY = {
    "onlyCandidate": Why(
        "Only one node could make room, so it is nominated.",
        "只有一个节点能腾出空间，因此提名它。",
    ),
    "minNumPDBViolations": Why(
        "Fewest PodDisruptionBudget violations among the victims.",
        "受害者违反 PodDisruptionBudget 的次数最少。",
    ),
    "minHighestPriority": Why(
        "The lowest priority of the most important victim.",
        "受害者中最高的优先级最低。",
    ),
    "minSumPriorities": Why(
        "The smallest sum of victim priorities (each shifted by 2^31 so negative ones count).",
        "受害者优先级之和最小（每个加上 2^31，使负优先级也计入）。",
    ),
    "minNumPods": Why("The fewest victims.", "受害者数量最少。"),
    "latestStartTime": Why(
        "The latest start time among the highest-priority victims (the youngest pods go).",
        "最高优先级受害者中最早启动时间最晚（驱逐运行时间最短的 Pod）。",
    ),
    "firstCandidate": Why(
        "Every criterion tied: the first candidate in dry-run order is taken. Upstream walks a Go "
        "map here, so its pick among such ties is effectively random.",
        "所有准则都打平：取试运行顺序中的第一个候选节点。"
        "上游此处遍历 Go map，因此在这种平局中的选择实际上是随机的。",
    ),
}


def _no_victims(run: NodeDryRun) -> bool:
    return run.status is not None and run.status.reasons == (NO_VICTIMS,)


def _victim_json(pod: PodInfo) -> dict:
    return {"pod": pod.key, "uid": pod.uid, "priority": pod.priority, "startTime": _start_text(pod)}


def _start_text(pod: PodInfo) -> str | None:
    return (pod.pod.get("status") or {}).get("startTime")


def start_time(pod: PodInfo) -> datetime:
    """util.GetPodStartTime: status.startTime, or "now" (later than any start) when unset."""
    text = _start_text(pod)
    if not text:
        return _LATEST
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return _LATEST


def importance(pod: PodInfo) -> tuple:
    """util.MoreImportantPod as a sort key: higher priority first, then the earlier start."""
    return (-pod.priority, start_time(pod))


def calculate_num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    n = num_nodes * percentage // 100
    if n < absolute:
        n = absolute
    return min(n, num_nodes)


# -- eligibility ---------------------------------------------------------------------------------
def _terminating_by_preemption(pod: PodInfo) -> bool:
    if not (pod.pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    for condition in (pod.pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "DisruptionTarget":
            return condition.get("status") == "True" and condition.get("reason") == "PreemptionByScheduler"
    return False


def not_eligible_reason(pod: PodInfo, snapshot: Snapshot, statuses: dict[str, Status]) -> str:
    """PodEligibleToPreemptOthers: the reason the pod may not preempt, or "" when it may."""
    spec = pod.pod.get("spec") or {}
    if spec.get("preemptionPolicy") == "Never":
        return PREEMPT_NEVER
    nominated = (pod.pod.get("status") or {}).get("nominatedNodeName") or ""
    if nominated:
        status = statuses.get(nominated)
        if status is not None and status.code is Code.UNRESOLVABLE:
            return ""
        node = snapshot.get(nominated)
        if node is not None:
            for existing in node.pods:
                if existing.priority < pod.priority and _terminating_by_preemption(existing):
                    return TERMINATING_ON_NOMINATED
    return ""


# -- checking one node ---------------------------------------------------------------------------
# PreFilters that read only the incoming pod (and the nodes), never the bound pods: their outcome
# holds however many pods the dry run takes away. The others (InterPodAffinity,
# PodTopologySpread, VolumeRestrictions) run afresh for each check, standing for upstream's
# AddPod/RemovePod updates of their state; one that skips with every pod bound skips with fewer.
POD_ONLY_PREFILTERS = frozenset(
    {"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit"}
)


class FitChecker:
    """The first failing filter of `pod` on one node as the snapshot stands at each call."""

    def __init__(self, profile: Profile, pod: PodInfo, snapshot: Snapshot) -> None:
        self.profile, self.pod, self.snapshot = profile, pod, snapshot
        self.skipped: set[str] = set()
        self.cached: dict[str, tuple[object, dict]] = {}  # plugin -> (outcome, the state it wrote)
        state = CycleState(snapshot.nodes_version)  # PreFilter sees every node: memos hold
        for plugin in profile.filters:
            before = set(state)
            outcome = plugin.pre_filter(state, pod, snapshot.nodes, snapshot)
            if isinstance(outcome, Status) and outcome.is_skip:
                self.skipped.add(plugin.name)
            elif plugin.name in POD_ONLY_PREFILTERS:
                self.cached[plugin.name] = (outcome, {k: state[k] for k in set(state) - before})

    def first_failure(self, node: NodeInfo) -> Status | None:
        # PreFilter sees every node, so the plugins' memos of node-only facts hold; Filter sees
        # one node, so they must not (nodes_version None). The dry run quotes reasons only.
        state = CycleState(self.snapshot.nodes_version, explain=False)
        skipped = set(self.skipped)
        for plugin in self.profile.filters:
            if plugin.name in skipped:
                continue
            if plugin.name in self.cached:
                outcome, written = self.cached[plugin.name]
                state.update(written)
            else:
                outcome = plugin.pre_filter(state, self.pod, self.snapshot.nodes, self.snapshot)
            if outcome is None:
                continue
            if isinstance(outcome, PreFilterResult):
                if node.name not in outcome.node_names:
                    reason = f"node(s) didn't satisfy plugin(s) [{plugin.name}]"
                    return Status(Code.UNRESOLVABLE, (reason,), plugin.name)
            elif isinstance(outcome, Status) and outcome.code is not Code.SUCCESS and not outcome.is_skip:
                return Status(outcome.code, outcome.reasons, plugin.name, outcome.why)
            elif isinstance(outcome, Status) and outcome.is_skip:
                skipped.add(plugin.name)  # for this check only: pods put back may undo it
        state.nodes_version = None
        one = [node]
        for plugin in self.profile.filters:
            if plugin.name in skipped:
                continue
            failure = plugin.filter(state, self.pod, one).get(node.name)
            if failure is not None:
                return Status(failure.code, failure.reasons, plugin.name, failure.why)
        return None


# -- SelectVictimsOnNode -------------------------------------------------------------------------
def violating_victims(pods: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]) -> set[int]:
    """filterPodsWithPDBViolation: ids of the pods whose eviction would exceed a PDB's budget,
    counting down each matching PDB's disruptionsAllowed in the given order."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: set[int] = set()
    for pod in pods:
        if not pod.labels:
            continue
        for index, pdb in enumerate(pdbs):
            if not pdb.selects(pod) or pod.name in pdb.disrupted_pods:
                continue
            allowed[index] -= 1
            if allowed[index] < 0:
                violating.add(id(pod))
    return violating


def select_victims_on_node(
    profile: Profile,
    pod: PodInfo,
    snapshot: Snapshot,
    node: NodeInfo,
    pdbs: Sequence[PodDisruptionBudget] = (),
    checker: FitChecker | None = None,
) -> NodeDryRun:
    original_order = list(node.pods)
    potential = [p for p in original_order if p.priority < pod.priority]
    if not potential:
        status = Status(Code.UNRESOLVABLE, (NO_VICTIMS,), "DefaultPreemption")
        why = Why(
            f"Every pod on {node.name} has priority {pod.priority} or higher, so none may be evicted.",
            f"{node.name} 上所有 Pod 的优先级都不低于 {pod.priority}，没有可驱逐的 Pod。",
        )
        return NodeDryRun(node.name, status, why=why)
    try:
        checker = checker or FitChecker(profile, pod, snapshot)
        for victim in potential:
            snapshot.remove_pod(victim)
        failure = checker.first_failure(node)
        if failure is not None:
            why = Why(
                f"Even with all {len(potential)} lower-priority pod(s) removed, the pod does not fit on "
                f"{node.name}: {failure.plugin} says {failure.message()}.",
                f"即使移除全部 {len(potential)} 个低优先级 Pod，该 Pod 仍放不进 {node.name}："
                f"{failure.plugin} 报告 {failure.message()}。",
            )
            return NodeDryRun(node.name, failure, why=why)
        potential.sort(key=importance)  # stable: equal pods keep the node's order
        violating_ids = violating_victims(potential, pdbs)
        ordered = [p for p in potential if id(p) in violating_ids] + [
            p for p in potential if id(p) not in violating_ids
        ]
        run = NodeDryRun(node.name, None)
        for candidate in ordered:
            violates = id(candidate) in violating_ids
            snapshot.add_pod(candidate)
            failure = checker.first_failure(node)
            if failure is None:
                run.steps.append(VictimStep(candidate, violates, False, _reprieved_why(candidate, violates)))
                continue
            snapshot.remove_pod(candidate)
            run.victims.append(candidate)
            run.num_pdb_violations += violates
            run.steps.append(VictimStep(candidate, violates, True, _victim_why(candidate, failure, violates)))
        if violating_ids and len(violating_ids) < len(potential):
            run.victims.sort(key=importance)
        if not run.victims:
            # Only possible when something else changed the fit; upstream reports it as an error.
            message = f'expected at least one victim pod on node "{node.name}"'
            return NodeDryRun(node.name, Status(Code.ERROR, (message,), "DefaultPreemption"))
        run.why = Why(
            f"Evicting {len(run.victims)} pod(s) makes room on {node.name}; "
            f"{len(potential) - len(run.victims)} lower-priority pod(s) can stay.",
            f"驱逐 {len(run.victims)} 个 Pod 即可在 {node.name} 上腾出空间；"
            f"{len(potential) - len(run.victims)} 个低优先级 Pod 可以保留。",
        )
        return run
    finally:
        _restore(snapshot, node, original_order)


def _restore(snapshot: Snapshot, node: NodeInfo, original_order: list[PodInfo]) -> None:
    present = {id(p) for p in node.pods}
    for pod in original_order:
        if id(pod) not in present:
            snapshot.add_pod(pod)
    node.pods[:] = original_order  # the same pods, back in their order (explanations walk it)
    node.pods_with_affinity[:] = [p for p in original_order if p.has_any_pod_affinity]
    node.pods_with_required_anti_affinity[:] = [p for p in original_order if p.has_required_anti_affinity]


def _reprieved_why(pod: PodInfo, violates: bool) -> Why:
    pdb_en = " (its eviction would violate a PodDisruptionBudget, so it was tried first)" if violates else ""
    pdb_zh = "（驱逐它会违反 PodDisruptionBudget，因此优先尝试保留）" if violates else ""
    return Why(
        f"With {pod.key} (priority {pod.priority}) put back, the pod still fits{pdb_en}.",
        f"放回 {pod.key}（优先级 {pod.priority}）后，该 Pod 仍然放得下{pdb_zh}。",
    )


def _victim_why(pod: PodInfo, failure: Status, violates: bool) -> Why:
    pdb_en = "; this eviction violates a PodDisruptionBudget" if violates else ""
    pdb_zh = "；此次驱逐违反 PodDisruptionBudget" if violates else ""
    return Why(
        f"With {pod.key} (priority {pod.priority}) put back, {failure.plugin} fails "
        f"({failure.message()}){pdb_en}.",
        f"放回 {pod.key}（优先级 {pod.priority}）后 {failure.plugin} 失败（{failure.message()}）{pdb_zh}。",
    )


# -- pickOneNodeForPreemption --------------------------------------------------------------------
def _earliest_start_of_highest(victims: list[PodInfo]) -> datetime:
    """util.GetEarliestPodStartTime: the earliest start among the highest-priority victims."""
    highest = max(p.priority for p in victims)
    return min(start_time(p) for p in victims if p.priority == highest)


# What each criterion compares, as a class reads it (upstream's scores are negated so the
# highest wins, and minSumPriorities shifts each priority by 2^31).
_PLAIN_FUNCS: dict[str, Callable[[NodeDryRun], object]] = {
    "minNumPDBViolations": lambda run: run.num_pdb_violations,
    "minHighestPriority": lambda run: run.victims[0].priority,
    "minSumPriorities": lambda run: sum(p.priority for p in run.victims),
    "minNumPods": lambda run: len(run.victims),
    "latestStartTime": lambda run: _earliest_start_of_highest(run.victims),
}
CRITERION_LABELS: dict[str, dict[str, str]] = {
    "minNumPDBViolations": {"en": "PodDisruptionBudget violations", "zh": "违反 PDB 的次数"},
    "minHighestPriority": {"en": "highest victim priority", "zh": "受害者的最高优先级"},
    "minSumPriorities": {"en": "sum of victims' priorities", "zh": "受害者优先级之和"},
    "minNumPods": {"en": "victims", "zh": "受害者数量"},
    "latestStartTime": {
        "en": "earliest start of the highest-priority victims",
        "zh": "最高优先级受害者的最早启动时间",
    },
}

_SCORE_FUNCS: list[tuple[str, Callable[[NodeDryRun], object]]] = [
    ("minNumPDBViolations", lambda run: -run.num_pdb_violations),
    ("minHighestPriority", lambda run: -run.victims[0].priority),
    ("minSumPriorities", lambda run: -sum(p.priority + MAX_INT32 + 1 for p in run.victims)),
    ("minNumPods", lambda run: -len(run.victims)),
    ("latestStartTime", lambda run: _earliest_start_of_highest(run.victims)),
]


def _shown(value: object) -> object:
    if isinstance(value, datetime):
        return None if value == _LATEST else value.isoformat() + "Z"
    return value


def pick_one_node(
    runs: list[NodeDryRun], rng: random.Random | None = None
) -> tuple[str, str, list[Criterion]]:
    """The chosen node, the criterion that decided, and each criterion applied on the way. With
    `rng`, complete ties go to a random one of them, as upstream's map iteration does."""
    if len(runs) == 1:
        return runs[0].node, "onlyCandidate", []
    remaining = runs
    applied: list[Criterion] = []
    for name, score in _SCORE_FUNCS:
        scores = {run.node: score(run) for run in remaining}
        best = max(scores.values())
        remaining = [run for run in remaining if scores[run.node] == best]
        kept = [r.node for r in remaining]
        shown = {node: _shown(value) for node, value in scores.items()}
        plain = {run.node: _shown(_PLAIN_FUNCS[name](run)) for run in runs if run.node in scores}
        applied.append(Criterion(name, shown, kept, plain))
        if len(remaining) == 1:
            return remaining[0].node, name, applied
    chosen = rng.choice(remaining) if rng is not None else remaining[0]
    return chosen.node, "firstCandidate", applied


# -- the PostFilter ------------------------------------------------------------------------------
def preempt(
    profile: Profile,
    pod: PodInfo,
    snapshot: Snapshot,
    statuses: dict[str, Status],
    pdbs: Sequence[PodDisruptionBudget] = (),
    *,
    offset: int = 0,
    rng: random.Random | None = None,
    min_candidate_nodes_percentage: int = MIN_CANDIDATE_NODES_PERCENTAGE,
    min_candidate_nodes_absolute: int = MIN_CANDIDATE_NODES_ABSOLUTE,
) -> Preemption:
    """Evaluator.Preempt for a pod no node could take; `statuses` holds each node's filter status.

    The dry run starts at potential node `offset`; with `rng` it starts at a random one and
    complete ties are broken at random, as upstream does."""
    reason = not_eligible_reason(pod, snapshot, statuses)
    if reason:
        return Preemption(eligible=False, message=f"preemption: {reason}")
    names = snapshot.names()
    potential = [
        name for name in names if (s := statuses.get(name)) is not None and s.code is Code.UNSCHEDULABLE
    ]
    result = Preemption(eligible=True, potential_nodes=len(potential))
    if potential:
        wanted = calculate_num_candidates(
            len(potential), min_candidate_nodes_percentage, min_candidate_nodes_absolute
        )
        start = rng.randrange(len(potential)) if rng is not None else offset % len(potential)
        result.wanted_candidates, result.offset = wanted, start
        non_violating: list[NodeDryRun] = []
        violating: list[NodeDryRun] = []
        checker = FitChecker(profile, pod, snapshot)
        for i in range(len(potential)):
            node = snapshot.by_name[potential[(start + i) % len(potential)]]
            run = select_victims_on_node(profile, pod, snapshot, node, pdbs, checker)
            result.dry_runs.append(run)
            if run.status is None:
                # Each list holds at most `wanted` candidates, as upstream's candidateList.
                kept = violating if run.num_pdb_violations else non_violating
                if len(kept) < wanted:
                    kept.append(run)
                else:
                    run.dropped = True
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    break
        candidates = non_violating + violating
        if candidates:
            result.candidates = [run.node for run in candidates]
            chosen, result.decided_by, result.criteria = pick_one_node(candidates, rng)
            result.nominated_node = chosen
            return result
    # No candidate: a FitError over every node, those never dry-run being "not helpful".
    tried = {run.node: run.status for run in result.dry_runs}
    verdicts = [tried.get(name) or NOT_HELPFUL for name in names]
    result.message = f"preemption: {histogram_message(len(names), verdicts)}"
    return result

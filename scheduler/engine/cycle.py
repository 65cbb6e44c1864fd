"""One scheduling cycle in teaching mode: every filter on every node, then scores, then the choice.

What a node *reports* (and the FailedScheduling message) is still the first failing plugin in
profile order, exactly as kube-scheduler, which stops at that plugin.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import filterfalse, repeat
from operator import attrgetter, itemgetter, mul

from scheduler.engine.decision import Decision
from scheduler.engine.fit_error import fit_error_message
from scheduler.engine.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    CycleState,
    PreFilterResult,
    ScoreColumn,
    Status,
    Why,
)
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.preemption import PodDisruptionBudget, preempt
from scheduler.engine.profile import Profile, default_profile
from scheduler.engine.snapshot import Snapshot

_PLUGIN, _CODE = attrgetter("plugin"), attrgetter("code")


class ScoreOutOfRange(RuntimeError):
    pass


def schedule(
    pod: dict | PodInfo,
    snapshot: Snapshot,
    profile: Profile | None = None,
    *,
    score_all_nodes: bool = False,
    tie_break: str = "deterministic",
    seed: int | None = None,
    nominated: Sequence[tuple[dict | PodInfo, str]] = (),
    pdbs: Sequence[PodDisruptionBudget] = (),
    start_index: int = 0,
) -> Decision:
    """Explain where `pod` goes. `score_all_nodes` scores every node, as upstream's plugin tests do.

    `nominated` are other pending pods with the node each is nominated to: those of equal or
    higher priority count on their node while filtering (upstream's addNominatedPods). `pdbs`
    are the PodDisruptionBudgets preemption respects. `start_index` is the node the search for
    feasible nodes starts at (upstream's nextStartNodeIndex); the decision's `processed` says how
    many nodes the search went through, for the next cycle's start.
    """
    profile = profile or default_profile()
    pod_info = pod if isinstance(pod, PodInfo) else PodInfo.of(pod)
    nodes = snapshot.nodes
    decision = Decision(
        pod=pod_info,
        node_names=snapshot.names(),
        filters=profile.filters,
        scorers=profile.scorers,
        tie_break=tie_break,
        profile=profile.scheduler_name,
    )
    state = CycleState(snapshot.nodes_version)
    counted = _add_nominated(decision, pod_info, snapshot, nominated) if nominated else ()
    try:
        _run_filters(decision, state, pod_info, snapshot)
        if decision.error is None and not score_all_nodes:
            _limit_feasible(decision, profile, len(nodes), start_index)
        if decision.error is None and not decision.feasible and profile.post_filter:
            statuses = decision.first_failure
            # Deterministic by default; --tie-break random also draws upstream's random offset.
            rng = random.Random(seed) if tie_break == "random" else None
            decision.preemption = preempt(
                profile, pod_info, snapshot, statuses, pdbs, rng=rng, **profile.preemption_args
            )
    finally:
        for info in counted:
            snapshot.remove_pod(info)
    nominated_node = _nominated_node(pod_info)
    if (
        nominated_node
        and decision.error is None
        and nominated_node in decision.feasible
        and not score_all_nodes
    ):
        # evaluateNominatedNode: a pod whose nominated node passes every filter goes there, unscored.
        decision.selected, decision.tied, decision.nominated_first = nominated_node, (nominated_node,), True
        return decision
    if decision.error is None and (decision.feasible or score_all_nodes):
        _run_scores(decision, state, pod_info, snapshot, score_all_nodes)
    if decision.error is not None:
        decision.message = decision.error  # kube-scheduler reports the error itself
    elif decision.feasible:
        _select_host(decision, tie_break, seed)
    else:
        decision.message = _failure_message(decision, len(nodes))
    return decision


# numFeasibleNodesToFind's constants (pkg/scheduler/schedule_one.go).
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def nodes_to_find(percentage: int | None, num_all_nodes: int) -> tuple[int, int]:
    """(how many feasible nodes the search stops at, the percentage applied): upstream's
    numFeasibleNodesToFind. Below 100 nodes every node is searched; 0 or unset is adaptive."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes, 100
    if not percentage:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    return max(num_all_nodes * percentage // 100, MIN_FEASIBLE_NODES_TO_FIND), percentage


def _limit_feasible(decision: Decision, profile: Profile, num_nodes: int, start: int) -> None:
    """findNodesThatPassFilters stops once it has found enough feasible nodes, searching from
    `start` round the node list. Teaching mode evaluated every node anyway; the feasible nodes past
    the stop are kept as `not_scored` (shown, not hidden) and take no part in scoring."""
    wanted, percentage = nodes_to_find(profile.percentage_of_nodes_to_score, num_nodes)
    decision.nodes_to_find, decision.percentage = wanted, percentage
    decision.processed = len(decision.node_names)
    if len(decision.feasible) <= wanted or not decision.node_names:
        return
    feasible = set(decision.feasible)
    names = decision.node_names
    found: set[str] = set()
    for offset in range(len(names)):
        name = names[(start + offset) % len(names)]
        if name in feasible:
            found.add(name)
            if len(found) == wanted:
                decision.processed = offset + 1
                break
    decision.not_scored = tuple(name for name in decision.feasible if name not in found)
    decision.feasible = [name for name in decision.feasible if name in found]


def _nominated_node(pod: PodInfo) -> str:
    return (pod.pod.get("status") or {}).get("nominatedNodeName") or ""


def _add_nominated(
    decision: Decision, pod: PodInfo, snapshot: Snapshot, nominated: Sequence[tuple[dict | PodInfo, str]]
) -> list[PodInfo]:
    """Count the nominated pods of equal or higher priority on their nodes for this cycle's filters."""
    counted: list[PodInfo] = []
    for other, node in nominated:
        info = other if isinstance(other, PodInfo) else PodInfo.of(other)
        if info.key == pod.key or info.priority < pod.priority or snapshot.get(node) is None:
            continue
        counted.append(snapshot.add_pod(info.bound_to(node)))
        decision.nominated_pods += ((info.key, node),)
    return counted


def _failed(status: object) -> bool:
    """A plugin error (Code.ERROR), which fails the whole cycle as in kube-scheduler."""
    return isinstance(status, Status) and status.code is Code.ERROR


def _run_filters(decision: Decision, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> None:
    nodes = snapshot.nodes
    _run_pre_filters(decision, state, pod, snapshot)
    # Teaching mode: each filter runs on every node, even those an earlier plugin rejected.
    prefilter_failed = decision.prefilter_rejection
    erring: list[str] = []
    for plugin in decision.filters:
        if plugin.name in decision.skipped_filters:
            continue
        if prefilter_failed is not None and plugin.name == prefilter_failed.plugin:
            continue
        failures = plugin.filter(state, pod, nodes)
        if failures:
            if set(map(_PLUGIN, failures.values())) != {plugin.name}:
                failures = {name: _with_plugin(status, plugin.name) for name, status in failures.items()}
            if Code.ERROR in map(_CODE, failures.values()):
                erring.append(plugin.name)
        decision.filter_failures[plugin.name] = failures

    if prefilter_failed is not None:
        return  # every node failed at PreFilter
    failing = set(decision.absent_nodes)
    for failures in decision.filter_failures.values():
        failing.update(failures)
    decision.feasible = list(filterfalse(failing.__contains__, decision.node_names))
    if erring:
        # A Filter error on any node fails the cycle: report the first, in profile and node order.
        failures = decision.filter_failures[erring[0]]
        node = next(name for name in decision.node_names if _failed(failures.get(name)))
        decision.error = f'running "{erring[0]}" filter plugin: {failures[node].message()}'


def _run_pre_filters(decision: Decision, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> None:
    allowed: frozenset[str] | None = None
    narrowing: list[str] = []
    whys: list[Why] = []
    for plugin in decision.filters:
        outcome = plugin.pre_filter(state, pod, snapshot.nodes, snapshot)
        if outcome is None:
            continue
        if isinstance(outcome, PreFilterResult):
            narrowing.append(plugin.name)
            if outcome.why is not None:
                whys.append(outcome.why)
            allowed = outcome.node_names if allowed is None else allowed & outcome.node_names
        elif outcome.is_skip:
            decision.skipped_filters[plugin.name] = outcome
        elif _failed(outcome):
            # Every node reports the error, and the other filters still explain themselves.
            decision.prefilter_rejection = _with_plugin(outcome, plugin.name)
            decision.error = f'running PreFilter plugin "{plugin.name}": {outcome.message()}'
            break
        elif outcome.is_rejection:
            if decision.prefilter_rejection is None or outcome.code is Code.UNRESOLVABLE:
                decision.prefilter_rejection = _with_plugin(outcome, plugin.name)
            if outcome.code is Code.UNRESOLVABLE:
                break  # upstream stops PreFilter at the first UnschedulableAndUnresolvable
    decision.skipped_filters = _shared(decision.skipped_filters)
    if decision.prefilter_rejection is None and allowed is not None:
        _record_absent_nodes(decision, snapshot.nodes, allowed, narrowing, whys)


_SHARED_KEPT = 256
_shared_skips: dict[tuple, dict[str, Status]] = {}


def _shared(skipped: dict[str, Status]) -> dict[str, Status]:
    """One dict for every decision that skipped the same plugins with the very same statuses.

    Most pods skip the same plugins with statuses the plugins share; kept decisions pile up, and
    the garbage collector scans every dict they hold. A decision never changes the dict afterwards.
    The key holds the statuses' ids, which stay valid while the remembered dict keeps them alive.
    """
    if not skipped:
        return skipped  # an empty dict costs the collector nothing
    key = (*skipped, *map(id, skipped.values()))
    shared = _shared_skips.get(key)
    if shared is None:
        if len(_shared_skips) >= _SHARED_KEPT:
            _shared_skips.clear()
        shared = _shared_skips[key] = skipped
    return shared


def _record_absent_nodes(
    decision, nodes, allowed: frozenset[str], narrowing: list[str], whys: list[Why]
) -> None:
    if len(narrowing) == 1:
        reason = f"node(s) didn't satisfy plugin(s) [{narrowing[0]}]"
    else:
        reason = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(narrowing))}]"
    why = Why(
        f"PreFilter narrowed the candidates to {sorted(allowed)} (spec.affinity.nodeAffinity matchFields "
        "on metadata.name); this node was never considered.",
        f"PreFilter 已把候选节点缩小为 {sorted(allowed)}（nodeAffinity 的 matchFields 指定了 "
        "metadata.name），该节点根本不参与过滤。",
    )
    if len(whys) == 1 and narrowing != ["NodeAffinity"]:
        why = whys[0]  # the narrowing plugin's own words (VolumeBinding's bound local volumes)
    for node in nodes:
        if node.name not in allowed:
            decision.absent_nodes[node.name] = Status(Code.UNRESOLVABLE, (reason,), narrowing[0], why)


def _with_plugin(status: Status, plugin: str) -> Status:
    if status.plugin == plugin:
        return status
    return Status(status.code, status.reasons, plugin, status.why)


def _run_scores(
    decision: Decision, state: CycleState, pod: PodInfo, snapshot: Snapshot, score_all_nodes: bool
) -> None:
    if score_all_nodes:
        scored = list(snapshot.nodes)
        decision.scored = decision.node_names
    else:
        if len(decision.feasible) < 2:
            return  # one feasible node is chosen without PreScore or Score
        if len(decision.feasible) == len(snapshot.nodes):
            scored = list(snapshot.nodes)
        else:
            scored = list(itemgetter(*decision.feasible)(snapshot.by_name))
        decision.scored = decision.feasible  # the same names in the same (snapshot) order
    active = []
    for plugin, weight in decision.scorers:
        status = plugin.pre_score(state, pod, scored, snapshot)
        if _failed(status):
            decision.error = f'running PreScore plugin "{plugin.name}": {status.message()}'
            return
        if status is not None and status.is_skip:
            decision.skipped_scores[plugin.name] = status
        else:
            active.append((plugin, weight))
    decision.skipped_scores = _shared(decision.skipped_scores)
    weighted: list = []
    for plugin, weight in active:
        column: ScoreColumn | Status = plugin.score(state, pod, scored)
        if isinstance(column, Status):
            _fail_scoring(decision, plugin.name, column)
            return
        # Kept as tuples: the garbage collector stops scanning a tuple of ints, and decisions pile up.
        column.raw = tuple(column.raw)
        normalized = plugin.normalize_score(state, pod, column.raw)
        column.normalized = column.raw if normalized is None else tuple(normalized)
        _check_range(plugin.name, column.normalized)
        weighted.append(column.normalized if weight == 1 else map(mul, column.normalized, repeat(weight)))
        decision.columns[plugin.name] = column
    # Every node's sum over the plugins, in C; with no active plugin each node totals 1.
    totals = map(sum, zip(*weighted, strict=True)) if weighted else repeat(1, len(scored))
    decision.scored_totals = tuple(totals)


def _fail_scoring(decision: Decision, plugin: str, status: Status) -> None:
    if not _failed(status):
        raise TypeError(f"plugin {plugin!r} returned {status!r} from Score")
    decision.error = f'running Score plugins: plugin "{plugin}" failed with: {status.message()}'
    decision.columns.clear()  # no score of this cycle counts


_VALID_SCORES = frozenset(range(MIN_NODE_SCORE, MAX_NODE_SCORE + 1))


def _check_range(plugin: str, scores: Sequence[int]) -> None:
    if _VALID_SCORES.issuperset(scores):
        return  # the usual case, decided in one pass in C
    if scores and (min(scores) < MIN_NODE_SCORE or max(scores) > MAX_NODE_SCORE):
        value = next(v for v in scores if not MIN_NODE_SCORE <= v <= MAX_NODE_SCORE)
        raise ScoreOutOfRange(
            f"plugin {plugin!r} returns an invalid score {value}, it should be in the range "
            f"of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
        )


def _select_host(decision: Decision, tie_break: str, seed: int | None) -> None:
    if len(decision.feasible) == 1 and not decision.scored:
        decision.selected = decision.feasible[0]
        decision.tied = (decision.selected,)
        return
    if decision.scored is decision.feasible:
        totals = decision.scored_totals  # in the order of the feasible names
    else:
        totals = [decision.totals[name] for name in decision.feasible]
    best = max(totals)
    decision.tied = tuple(
        name for name, total in zip(decision.feasible, totals, strict=True) if total == best
    )
    if tie_break == "random":
        rng = random.Random(seed)
        chosen = decision.tied[0]
        for count, name in enumerate(decision.tied[1:], start=2):
            if rng.randrange(count) == 0:  # replace the choice with probability 1/count
                chosen = name
        decision.selected = chosen
    else:
        decision.selected = min(decision.tied)


def _failure_message(decision: Decision, num_nodes: int) -> str:
    statuses = [decision.first_failure[name] for name in decision.node_names]
    rejection = decision.prefilter_rejection
    preemption = decision.preemption
    return fit_error_message(
        num_nodes,
        statuses,
        prefilter_message=rejection.message() if rejection is not None else "",
        # A nomination is a successful PostFilter: it adds nothing to the message.
        postfilter_message=preemption.message if preemption is not None else "",
    )

"""A scheduling decision that explains every node: filters, scores, totals and the choice.

The decision keeps what it needs compactly (failures only, score columns) and renders the
per-node explanation on demand, so keeping thousands of them stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from scheduler.engine.framework import SUCCESS, Plugin, ScoreColumn, Status, Why
from scheduler.engine.legacy import legacy_names
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.preemption import Preemption

TIE_RULES = {
    "deterministic": Why(
        "Among nodes tied at the top total, KubeSim picks the one whose name sorts first, so a lesson "
        "replays the same way. The real kube-scheduler picks one of them uniformly at random.",
        "总分并列最高时，KubeSim 选名字按字典序最靠前的节点，使课堂演示可重现；真实的 kube-scheduler 会在"
        "并列节点中均匀随机地选一个。",
    ),
    "random": Why(
        "Among nodes tied at the top total, one is picked uniformly at random (reservoir sampling), "
        "as kube-scheduler's selectHost does.",
        "总分并列最高时，像 kube-scheduler 的 selectHost 一样，用蓄水池抽样在并列节点中均匀随机选一个。",
    ),
}


def _why(why: Why | None, node: str) -> dict[str, str] | None:
    """Render a Why for one node: plugins share one Why across nodes and write `{node}` for the name."""
    if why is None:
        return None
    return {"en": why.en.replace("{node}", node), "zh": why.zh.replace("{node}", node)}


@dataclass(slots=True)
class Decision:
    pod: PodInfo
    node_names: list[str]
    filters: list[Plugin]
    scorers: list[tuple[Plugin, int]]
    skipped_filters: dict[str, Status] = field(default_factory=dict)
    filter_failures: dict[str, dict[str, Status]] = field(default_factory=dict)
    prefilter_rejection: Status | None = None
    absent_nodes: dict[str, Status] = field(default_factory=dict)
    feasible: list[str] = field(default_factory=list)
    scored: list[str] = field(default_factory=list)
    scored_index: dict[str, int] = field(default_factory=dict)
    skipped_scores: dict[str, Status] = field(default_factory=dict)
    columns: dict[str, ScoreColumn] = field(default_factory=dict)
    scored_totals: tuple[int, ...] = ()  # each scored node's total, in the order of `scored`
    selected: str | None = None
    tied: tuple[str, ...] = ()
    tie_break: str = "deterministic"
    message: str | None = None
    error: str | None = None  # a plugin error that failed the cycle, worded as kube-scheduler words it
    preemption: Preemption | None = None  # DefaultPreemption's PostFilter, when no node was feasible
    nominated_first: bool = False  # the pod's nominated node passed every filter and was taken unscored
    # (pod, node) of the nominated pods counted in the filters; a tuple, not a list: kept decisions
    # pile up and the garbage collector scans every list they hold.
    nominated_pods: tuple[tuple[str, str], ...] = ()
    profile: str = "default-scheduler"  # the schedulerName of the profile that decided
    # Feasible nodes the search stopped before (percentageOfNodesToScore): shown, never scored.
    not_scored: tuple[str, ...] = ()
    nodes_to_find: int | None = None  # numFeasibleNodesToFind for this cycle
    percentage: int = 100  # the percentageOfNodesToScore that applied
    processed: int = 0  # nodes the search went through (the next cycle starts after them)
    _first_failure: dict[str, Status] | None = field(default=None, repr=False)
    _totals: dict[str, int] | None = field(default=None, repr=False)

    @property
    def totals(self) -> dict[str, int]:
        """Each scored node's total, by name (built when first asked for)."""
        if self._totals is None:
            # No totals when a plugin error ended the cycle while scoring.
            totals = zip(self.scored, self.scored_totals, strict=True) if self.scored_totals else ()
            self._totals = dict(totals)
        return self._totals

    @property
    def first_failure(self) -> dict[str, Status]:
        """Each failing node's first failure in profile order: the one kube-scheduler reports.

        Built when first asked for (an explanation, the FailedScheduling message): a kept decision
        that is never rendered does not hold it.
        """
        if self._first_failure is None:
            if self.prefilter_rejection is not None:
                self._first_failure = dict.fromkeys(self.node_names, self.prefilter_rejection)
            else:
                # Updating in reverse lets the earlier plugin overwrite the later one; PreFilter's
                # narrowing comes before every filter.
                first: dict[str, Status] = {}
                for plugin in reversed(self.filters):
                    first.update(self.filter_failures.get(plugin.name, {}))
                first.update(self.absent_nodes)
                self._first_failure = first
        return self._first_failure

    def rejecting_plugins(self) -> frozenset[str]:
        """The plugins that rejected the pod, as upstream's UnschedulablePlugins: each failing node's
        first failure (where upstream's evaluation stopped), or the PreFilter that rejected it."""
        if self.error is not None:
            return frozenset()
        if self.prefilter_rejection is not None:
            return frozenset((self.prefilter_rejection.plugin,))
        return frozenset(status.plugin for status in self.first_failure.values() if status.plugin)

    # -- per node ------------------------------------------------------------------------------
    def filter_status(self, plugin: str, node: str) -> Status:
        if self.prefilter_rejection is not None and self.prefilter_rejection.plugin == plugin:
            return self.prefilter_rejection
        if plugin in self.skipped_filters:
            return self.skipped_filters[plugin]
        if node in self.absent_nodes and self.absent_nodes[node].plugin == plugin:
            return self.absent_nodes[node]
        return self.filter_failures.get(plugin, {}).get(node, SUCCESS)

    def score_index(self, node: str) -> int | None:
        """The node's position in the score columns, or None when it was not scored."""
        if len(self.scored_index) != len(self.scored):  # built on the first explanation asked for
            self.scored_index = {name: index for index, name in enumerate(self.scored)}
        return self.scored_index.get(node)

    def score_cells(self, node: str) -> Iterator[tuple[Plugin, int, int, int, Why]]:
        """(plugin, weight, raw, normalized, unrendered why) for each plugin that scored the node."""
        index = self.score_index(node)
        if index is None:
            return
        for plugin, weight in self.scorers:
            column = self.columns.get(plugin.name)
            if column is None:
                continue
            raw, normalized = column.raw[index], column.normalized[index]
            detail = column.details[index] if column.details is not None else None
            yield plugin, weight, raw, normalized, plugin.explain_score(detail, raw, normalized, weight)

    def node_scores(self, node: str) -> dict[str, dict]:
        return {
            plugin.name: {
                "raw": raw,
                "normalized": normalized,
                "weight": weight,
                "weighted": normalized * weight,
                "legacy": legacy_names(plugin, "score"),
                "why": _why(why, node),
            }
            for plugin, weight, raw, normalized, why in self.score_cells(node)
        }

    def node_result(self, node: str) -> dict:
        first = self.first_failure.get(node)
        filters = {}
        for plugin in self.filters:
            status = self.filter_status(plugin.name, node)
            filters[plugin.name] = {
                "status": status.code.value,
                "reasons": list(status.reasons),
                "legacy": legacy_names(plugin, "filter"),
                "why": _why(status.why, node),
            }
        return {
            "feasible": first is None,
            "firstFailure": None
            if first is None
            else {
                "plugin": first.plugin,
                "status": first.code.value,
                "reasons": list(first.reasons),
                "why": _why(first.why, node),
            },
            "filters": filters,
            "scores": self.node_scores(node),
            "total": self.totals.get(node),
        }

    # -- whole decision ------------------------------------------------------------------------
    def to_json(self) -> dict:
        header = self.to_json_header()
        return {**header, "nodes": {name: self.node_result(name) for name in self.node_names}}

    def to_json_header(self) -> dict:
        """Everything of to_json() but the per-node explanations (the compact form shares it)."""
        return {
            "pod": self.pod.key,
            "profile": self.profile,
            "selected": self.selected,
            "message": self.message,
            "error": self.error,
            "feasibleNodes": list(self.feasible),
            "notScored": list(self.not_scored),
            "nodesToFind": {"count": self.nodes_to_find, "percentage": self.percentage},
            "filterPlugins": [plugin.name for plugin in self.filters],
            "scorePlugins": [
                {"name": plugin.name, "weight": weight, "legacy": legacy_names(plugin, "score")}
                for plugin, weight in self.scorers
            ],
            "skippedScores": {
                name: status.why.as_dict() if status.why else None
                for name, status in self.skipped_scores.items()
            },
            "nominatedNode": self.preemption.nominated_node if self.preemption else None,
            "preemption": self.preemption.to_json() if self.preemption else None,
            "nominatedFirst": self.nominated_first,
            "nominatedPods": [{"pod": pod, "node": node} for pod, node in self.nominated_pods],
            "tie": {
                "nodes": list(self.tied),
                "rule": self.tie_break,
                "mattered": len(self.tied) > 1,
                "why": TIE_RULES[self.tie_break].as_dict(),
            },
        }

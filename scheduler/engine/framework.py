"""The scheduling framework's vocabulary: statuses, cycle state and the plugin interface.

Plugins are evaluated column-wise: a Filter sees the whole node list and returns only the nodes
that fail, a Score returns one raw score per node. That keeps 5,000-node clusters fast in pure
Python while still evaluating every filter on every node (teaching mode).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Code(enum.Enum):
    SUCCESS = "Success"
    ERROR = "Error"
    UNSCHEDULABLE = "Unschedulable"
    UNRESOLVABLE = "UnschedulableAndUnresolvable"
    SKIP = "Skip"

    @property
    def is_rejection(self) -> bool:
        return self in (Code.UNSCHEDULABLE, Code.UNRESOLVABLE)


@dataclass(frozen=True, slots=True)
class Why:
    """A plain-language explanation in English and Simplified Chinese."""

    en: str
    zh: str

    def as_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    why: Why | None = None

    @property
    def is_success(self) -> bool:
        return self.code is Code.SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    @property
    def is_rejection(self) -> bool:
        return self.code.is_rejection

    def message(self) -> str:
        return ", ".join(self.reasons)


SUCCESS = Status(Code.SUCCESS)


def unschedulable(plugin: str, reason: str | Sequence[str], why: Why | None = None) -> Status:
    reasons = (reason,) if isinstance(reason, str) else tuple(reason)
    return Status(Code.UNSCHEDULABLE, reasons, plugin, why)


def unresolvable(plugin: str, reason: str | Sequence[str], why: Why | None = None) -> Status:
    reasons = (reason,) if isinstance(reason, str) else tuple(reason)
    return Status(Code.UNRESOLVABLE, reasons, plugin, why)


def skip(plugin: str, why: Why | None = None) -> Status:
    return Status(Code.SKIP, (), plugin, why)


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """PreFilter narrowed the candidate nodes to these names (NodeAffinity's metadata.name fields)."""

    node_names: frozenset[str]
    plugin: str
    why: Why | None = None


class CycleState(dict):
    """Per-cycle scratch space: PreFilter/PreScore facts keyed by plugin name.

    `nodes_version` is the snapshot's `nodes_version` when the cycle runs over a whole snapshot
    (None otherwise): see NodesMemo.
    """

    __slots__ = ("explain", "nodes_version")

    def __init__(self, nodes_version: object | None = None, explain: bool = True) -> None:
        super().__init__()
        self.nodes_version = nodes_version
        # False when only the verdict and the reasons count (preemption's dry runs): a plugin may
        # then leave out the plain-language why.
        self.explain = explain


class NodesMemo:
    """A filter's failures that depend only on the nodes themselves (labels, taints, cordons) and
    on one fact of the pod, remembered while the snapshot's nodes stay the same.

    Pods of a template then share one failures dict: no per-node work, and kept decisions hold one
    dict between them (nothing changes it afterwards). Without a snapshot's version in the state
    (a plugin test calling Filter directly) every call computes afresh.
    """

    __slots__ = ("_results", "_version")
    _KEPT = 256

    def __init__(self) -> None:
        self._version: object | None = None
        self._results: dict[Any, dict[str, Status]] = {}

    def get(self, state: CycleState, key: Any, compute: Callable[[], dict[str, Status]]) -> dict[str, Status]:
        """`compute()`'s failures for the pod fact `key` (hashable) over all the snapshot's nodes."""
        version = state.nodes_version
        if version is None:
            return compute()
        if version is not self._version or len(self._results) >= self._KEPT:
            self._version, self._results = version, {}
        try:
            failures = self._results.get(key)
        except TypeError:  # a pod fact that cannot be hashed (explain reads unvalidated files)
            return compute()
        if failures is None:
            failures = self._results[key] = compute()
        return failures


class SharedValues:
    """One object for equal values (tuples of strings and numbers) met in different cycles.

    Score details keep such tuples per node; the shared one is already old, and the collector has
    stopped tracking it, so a kept decision's column of them stays flat (see ScoreColumn.lazy).
    """

    __slots__ = ("_values",)
    _KEPT = 4096

    def __init__(self) -> None:
        self._values: dict[tuple, tuple] = {}

    def get(self, value: tuple) -> tuple:
        if len(self._values) >= self._KEPT:
            self._values.clear()
        return self._values.setdefault(value, value)


class LazyDetails(Sequence):
    """Per-node score details computed only when an explanation asks for one node.

    `build(*context, index)` makes node `index`'s detail. A module-level function plus its context
    (rather than a closure) keeps what a kept decision holds small; a context of plain tuples,
    strings and numbers costs the garbage collector nothing once it has seen it.
    """

    __slots__ = ("_build", "_context", "_length")

    def __init__(self, length: int, build: Callable[..., Any], *context: Any) -> None:
        self._length = length
        self._build = build
        self._context = context

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._build(*self._context, index)


class ScoreColumn:
    """One score plugin's results over the scored nodes, in node order.

    `details` holds per-node inputs of the arithmetic, for the explanation: a list given to the
    constructor, or, for a column made with `lazy()`, a LazyDetails that builds a node's entry only
    when an explanation asks (most decisions are never rendered in full). A lazy column keeps the
    recipe itself, not a LazyDetails object: every kept decision holds one column per score plugin,
    and the garbage collector scans each object they hold.
    """

    __slots__ = ("_build", "_context", "_details", "normalized", "raw")

    def __init__(
        self, raw: Sequence[int], details: Sequence[Any] | None = None, normalized: Sequence[int] = ()
    ) -> None:
        self.raw = raw  # the cycle keeps it as a tuple
        self.normalized = normalized
        self._details = details
        self._build: Callable[..., Any] | None = None
        self._context: tuple = ()

    @classmethod
    def lazy(cls, raw: Sequence[int], build: Callable[..., Any], *context: Any) -> ScoreColumn:
        """A column whose node `index` has the detail `build(*context, index)`.

        Keep `context` flat: strings, numbers, and tuples of those. The garbage collector stops
        tracking a tuple once nothing in it is tracked, but it finds that out one nesting level per
        collection, and a decision's objects meet only one or two collections before they join the
        oldest generation, every object of which each full collection scans again.
        """
        column = cls(raw)
        column._build, column._context = build, context
        return column

    @property
    def details(self) -> Sequence[Any] | None:
        if self._build is None:
            return self._details
        return LazyDetails(len(self.raw), self._build, *self._context)


class Plugin:
    """Base class. Override the extension points the plugin implements."""

    name: ClassVar[str] = ""  # the course notes' legacy predicate/priority names: legacy.py
    is_filter: ClassVar[bool] = False
    is_score: ClassVar[bool] = False

    def __init__(self, args: dict | None = None) -> None:
        self.args = args or {}

    # -- Filter side -------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | PreFilterResult | None:
        """None means Success. A Skip status skips Filter; a rejection or an error fails the whole cycle."""
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        """Return the failing nodes only, by name; every node not listed passed. A Code.ERROR status
        for any node fails the whole cycle."""
        return {}

    # -- Score side --------------------------------------------------------------------------
    def pre_score(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        """None means Success; a Skip status leaves this plugin out of the cycle's scores; a Code.ERROR
        status fails the whole cycle."""
        return None

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn | Status:
        """One raw score per node, or a Code.ERROR status that fails the cycle. The cycle never
        changes `nodes` afterwards, so lazy details may keep a reference to it."""
        raise NotImplementedError

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: Sequence[int]) -> list[int] | None:
        """Map raw scores onto 0..100; None means the plugin has no NormalizeScore."""
        return None

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        """The arithmetic behind one node's score, in plain language."""
        return Why(
            f"{self.name} scored {raw}, normalized to {normalized}; ×{weight} = {normalized * weight}.",
            f"{self.name} 原始得分 {raw}，归一化为 {normalized}；×{weight} = {normalized * weight}。",
        )

"""The resource numbers of every node as columns aligned with snapshot.nodes, kept up to date.

Scoring reads a few numbers of every scored node on every cycle. Read from NodeInfo objects, each
costs a couple of attribute lookups in Python; kept as lists by the snapshot, a cycle picks the
scored nodes' values with one itemgetter call, in C. Like the snapshot's indexes, the columns are
right only while pods are added and removed through the snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

from scheduler.engine.nodeinfo import NodeInfo

FIELDS: dict[str, Callable[[NodeInfo], int]] = {
    "allocatable.cpu": lambda node: node.allocatable.milli_cpu,
    "allocatable.memory": lambda node: node.allocatable.memory,
    "allocatable.ephemeral-storage": lambda node: node.allocatable.ephemeral_storage,
    "requested.cpu": lambda node: node.requested.milli_cpu,
    "requested.memory": lambda node: node.requested.memory,
    "requested.ephemeral-storage": lambda node: node.requested.ephemeral_storage,
    "non_zero.cpu": lambda node: node.non_zero_cpu,
    "non_zero.memory": lambda node: node.non_zero_memory,
}


class NodeColumns:
    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.columns = {name: [read(node) for node in nodes] for name, read in FIELDS.items()}

    def update(self, position: int, node: NodeInfo) -> None:
        """The node's pods changed: refresh its numbers."""
        for name, read in FIELDS.items():
            self.columns[name][position] = read(node)


class Picked:
    """Columns restricted to some nodes, in their order; each column copied once, on first use."""

    def __init__(self, nodes: Sequence[NodeInfo], columns: NodeColumns, positions: Sequence[int]) -> None:
        self.nodes = nodes
        self._columns = columns
        if len(positions) == 1:
            self._pick: Callable[[list[int]], tuple[int, ...]] = lambda column: (column[positions[0]],)
        elif positions:
            getter = itemgetter(*positions)
            self._pick = getter
        else:
            self._pick = lambda column: ()
        self._picked: dict[str, tuple[int, ...]] = {}

    def column(self, name: str) -> tuple[int, ...]:
        picked = self._picked.get(name)
        if picked is None:
            picked = self._picked[name] = self._pick(self._columns.columns[name])
        return picked

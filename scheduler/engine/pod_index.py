"""Indexes over the snapshot's bound pods, kept up to date as pods come and go.

A plugin that would otherwise walk every bound pod on every cycle asks the snapshot for an index
(`snapshot.index(LabelIndex)`): it is built on first use and then maintained incrementally, like
kube-scheduler's per-node lists of pods with affinity, but grouped so that a cycle does work in
proportion to the distinct label sets or terms, not to the pods.

Each entry remembers its node. An index has no order of its own: a plugin whose explanation quotes
"the first matching pods" sorts what it found by walk_order() to replay a walk over snapshot.nodes
and their pods.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo


class PodIndex(Protocol):
    def add(self, pod: PodInfo, node: NodeInfo) -> None: ...

    def remove(self, pod: PodInfo) -> None: ...


@dataclass(slots=True)
class LabelGroup:
    """Bound pods that share a namespace and an identical label set."""

    namespace: str
    labels: dict[str, str]
    members: dict[PodInfo, NodeInfo]  # pod -> the node it is bound to
    key: tuple = ()  # its key in LabelIndex.groups
    # node name -> [node, members bound there that are not terminating]: what PodTopologySpread
    # counts, kept up to date so that a cycle does work per node, not per pod (the thousand
    # replicas of an RC are one group).
    live_per_node: dict[str, list] = field(default_factory=dict)

    def count_live(self, node: NodeInfo, sign: int) -> None:
        entry = self.live_per_node.get(node.name)
        if entry is None:
            self.live_per_node[node.name] = [node, sign]
            return
        if sign > 0:
            entry[0] = node  # a node's update re-adds its pods with its new NodeInfo
        entry[1] += sign
        if not entry[1]:
            del self.live_per_node[node.name]


class LabelIndex:
    """Bound pods grouped by (namespace, labels): a selector is evaluated once per group.

    Groups are also filed under each of their labels, so a selector that requires app=web only
    looks at the groups labelled app=web.
    """

    def __init__(self) -> None:
        self.groups: dict[tuple, LabelGroup] = {}
        self._group_of: dict[PodInfo, LabelGroup] = {}
        self._live: dict[PodInfo, NodeInfo] = {}  # members counted in live_per_node, and where
        self._by_label: dict[tuple[str, str], dict[tuple, LabelGroup]] = {}

    def add(self, pod: PodInfo, node: NodeInfo) -> None:
        key = _group_key(pod)
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = LabelGroup(pod.namespace, pod.labels, {}, key)
            for label in hashable_labels(pod.labels):
                self._by_label.setdefault(label, {})[key] = group
        group.members[pod] = node
        self._group_of[pod] = group  # not the key just built: thousands of bound pods share one
        if not terminating(pod):
            self._live[pod] = node
            group.count_live(node, 1)

    def remove(self, pod: PodInfo) -> None:
        group = self._group_of.pop(pod, None)
        if group is None:
            return
        del group.members[pod]
        node = self._live.pop(pod, None)
        if node is not None:
            group.count_live(node, -1)
        if not group.members:
            del self.groups[group.key]
            for label in hashable_labels(group.labels):
                filed = self._by_label[label]
                del filed[group.key]
                if not filed:
                    del self._by_label[label]

    def candidates(self, required: Sequence[Sequence[tuple[str, str]]]) -> list[LabelGroup]:
        """The groups that may match any of several selectors, given each one's required labels.

        A selector that requires no label at all could match any group.
        """
        found: dict[int, LabelGroup] = {}
        for labels in required:
            if not labels:
                return list(self.groups.values())
            for group in self._by_label.get(labels[0], {}).values():
                found[id(group)] = group
        return list(found.values())


def terminating(pod: PodInfo) -> bool:
    """The pod has a deletionTimestamp (a graceful deletion under way)."""
    return bool((pod.pod.get("metadata") or {}).get("deletionTimestamp"))


def hashable_labels(labels: dict) -> frozenset:
    """The (key, value) labels that can be hashed: all of them, unless a file held a list or map."""
    try:
        return frozenset(labels.items())
    except TypeError:
        return frozenset(item for item in labels.items() if _hashable(item))


def _hashable(item: tuple) -> bool:
    try:
        hash(item)
    except TypeError:
        return False
    return True


def _group_key(pod: PodInfo) -> tuple:
    labels = hashable_labels(pod.labels)
    if len(labels) < len(pod.labels):
        return (pod.namespace, pod)  # an odd label value: the pod forms a group of its own
    return (pod.namespace, labels)


def walk_order(snapshot: Any, pod: PodInfo, node: NodeInfo) -> tuple[int, int]:
    """Where a walk over snapshot.nodes, then each node's pods, meets `pod`."""
    return snapshot.position(node.name), node.pods.index(pod)

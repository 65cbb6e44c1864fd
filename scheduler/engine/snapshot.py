"""The cluster as the scheduler sees it: nodes in order, each with its bound pods.

Kept up to date incrementally (like kube-scheduler's cache) so that placing one pod does not
rebuild the state of thousands of nodes. Plugins may ask for derived indexes over the bound pods
(`index()`, see pod_index); those are kept up to date too, so pods and nodes must change only
through the snapshot's methods.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.pod_index import PodIndex
from scheduler.engine.podinfo import PodInfo

IndexT = TypeVar("IndexT", bound=PodIndex)
STORAGE_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode")


class Storage:
    """The PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes the volume plugins
    read (upstream's listers of them)."""

    __slots__ = ("claims", "classes", "csinodes", "volumes")

    def __init__(self) -> None:
        self.claims: dict[tuple[str, str], dict] = {}  # (namespace, name) -> claim
        self.volumes: dict[str, dict] = {}
        self.classes: dict[str, dict] = {}
        self.csinodes: dict[str, dict] = {}  # node name -> its CSINode

    def _table(self, kind: str) -> dict:
        tables = {
            "PersistentVolumeClaim": self.claims,
            "PersistentVolume": self.volumes,
            "CSINode": self.csinodes,
        }
        return tables.get(kind, self.classes)

    @staticmethod
    def _key(kind: str, obj: dict):
        meta = obj.get("metadata") or {}
        if kind == "PersistentVolumeClaim":
            return meta.get("namespace") or "default", meta.get("name") or ""
        return meta.get("name") or ""

    def upsert(self, obj: dict) -> None:
        kind = obj.get("kind") or ""
        if kind in STORAGE_KINDS:
            self._table(kind)[self._key(kind, obj)] = obj

    def remove(self, kind: str, obj: dict) -> None:
        self._table(kind).pop(self._key(kind, obj), None)

    def claim(self, namespace: str, name: str) -> dict | None:
        return self.claims.get((namespace, name))


class Snapshot:
    def __init__(self) -> None:
        self.nodes: list[NodeInfo] = []
        self.by_name: dict[str, NodeInfo] = {}
        self.image_num_nodes: Counter = Counter()  # image name -> nodes listing it
        self.generation = 0
        # Replaced whenever a node is added, changed or removed (not when pods come and go):
        # filters remember results that depend only on the nodes by it (framework.NodesMemo).
        self.nodes_version = object()
        # Pods bound to a node we do not know (yet): attached when the node appears.
        self._waiting: dict[str, list[PodInfo]] = {}
        self._positions: dict[str, int] = {}
        self._names: list[str] | None = None  # node names in order; replaced, never changed
        self._indexes: dict[Callable[[], PodIndex], PodIndex] = {}
        self.storage = Storage()

    @classmethod
    def from_objects(
        cls, nodes: Iterable[dict], pods: Iterable[dict] = (), storage: Iterable[dict] = ()
    ) -> Snapshot:
        """`storage`: PersistentVolumeClaims, PersistentVolumes and StorageClasses (by `kind`)."""
        snapshot = cls()
        for obj in storage:
            snapshot.storage.upsert(obj)
        for node in nodes:
            snapshot.upsert_node(node)
        for pod in pods:
            if (pod.get("spec") or {}).get("nodeName"):
                snapshot.add_pod(pod)
        return snapshot

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self.nodes)

    def get(self, name: str) -> NodeInfo | None:
        return self.by_name.get(name)

    def names(self) -> list[str]:
        """The node names in order. The list is shared: treat it as read-only."""
        if self._names is None:
            self._names = [node.name for node in self.nodes]
        return self._names

    def position(self, name: str) -> int:
        """The node's place in `nodes`."""
        return self._positions[name]

    def index(self, factory: Callable[[], IndexT]) -> IndexT:
        """The snapshot's index built by `factory`: filled on first use, then kept up to date."""
        index = self._indexes.get(factory)
        if index is None:
            index = self._indexes[factory] = factory()
            for node in self.nodes:
                for pod in node.pods:
                    index.add(pod, node)
        return index  # type: ignore[return-value]

    def pods(self) -> Iterator[PodInfo]:
        for node in self.nodes:
            yield from node.pods

    def upsert_node(self, node: dict) -> NodeInfo:
        info = NodeInfo.of(node)
        previous = self.by_name.get(info.name)
        if previous is not None:
            self._unindex(previous.pods)
            info.take_pods_from(previous)
            self._count_images(previous, -1)
            self.nodes[self._positions[info.name]] = info
        else:
            self._positions[info.name] = len(self.nodes)
            self._names = None
            self.nodes.append(info)
            for pod in self._waiting.pop(info.name, []):
                info.add_pod(pod)
        for index in self._indexes.values():
            for pod in info.pods:
                index.add(pod, info)
        self.by_name[info.name] = info
        self._count_images(info, 1)
        self.generation += 1
        self.nodes_version = object()
        return info

    def remove_node(self, name: str) -> None:
        info = self.by_name.pop(name, None)
        if info is None:
            return
        self.nodes.remove(info)
        self._names = None
        self._positions = {node.name: position for position, node in enumerate(self.nodes)}
        self._unindex(info.pods)
        self._count_images(info, -1)
        if info.pods:
            self._waiting[name] = list(info.pods)
        self.generation += 1
        self.nodes_version = object()

    def add_pod(self, pod: dict | PodInfo) -> PodInfo:
        info = pod if isinstance(pod, PodInfo) else PodInfo.of(pod)
        node = self.by_name.get(info.node_name)
        if node is None:
            self._waiting.setdefault(info.node_name, []).append(info)
        else:
            node.add_pod(info)
            for index in self._indexes.values():
                index.add(info, node)
        self.generation += 1
        return info

    def remove_pod(self, pod: dict | PodInfo) -> None:
        info = pod if isinstance(pod, PodInfo) else PodInfo.of(pod)
        node = self.by_name.get(info.node_name)
        if node is not None:
            bound = [existing for existing in node.pods if existing.key == info.key][:1]
            if node.remove_pod(info):
                self._unindex(bound)
        else:
            waiting = self._waiting.get(info.node_name, [])
            waiting[:] = [p for p in waiting if p.key != info.key]
        self.generation += 1

    def _unindex(self, pods: Iterable[PodInfo]) -> None:
        for index in self._indexes.values():
            for pod in pods:
                index.remove(pod)

    def _count_images(self, info: NodeInfo, sign: int) -> None:
        for name in info.images:
            self.image_num_nodes[name] += sign
            if self.image_num_nodes[name] <= 0:
                del self.image_num_nodes[name]

"""VolumeRestrictions: a GCE PD, AWS EBS, RBD or iSCSI disk already used on a node may conflict,
and a ReadWriteOncePod claim may be used by one pod only.

PreFilter reads each PersistentVolumeClaim the pod mounts (a missing one rejects the pod with
`persistentvolumeclaim "NAME" not found`, UnschedulableAndUnresolvable, before VolumeBinding runs)
and counts the scheduled pods that already use its ReadWriteOncePod claims; it skips a pod with
neither such a disk nor a claim, as upstream (docs/scheduler.md §2.9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler.engine.framework import CycleState, Plugin, Status, Why, skip, unresolvable, unschedulable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

NAME = "VolumeRestrictions"
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)
DISK_KINDS = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")

_SKIP = Why(
    "The pod's spec.volumes has no GCE PD, AWS EBS, RBD or iSCSI disk and no PersistentVolumeClaim, so "
    "this filter has nothing to check.",
    "Pod 的 spec.volumes 中没有 GCE PD、AWS EBS、RBD 或 iSCSI 磁盘，也没有 PersistentVolumeClaim，"
    "此过滤器无需检查。",
)
_SKIPPED = skip(NAME, _SKIP)  # shared by every cycle
_RULES = {
    "gcePersistentDisk": (
        "the same GCE PD (pdName) may be shared only when every pod mounts it readOnly",
        "同一块 GCE PD（pdName）只有在所有 Pod 都以 readOnly 挂载时才能共用",
    ),
    "awsElasticBlockStore": (
        "an AWS EBS volume (volumeID) can never be used by two pods on one node, not even read-only",
        "同一块 AWS EBS 卷（volumeID）在同一节点上不能被两个 Pod 使用，即使只读也不行",
    ),
    "iscsi": (
        "the same iSCSI target (iqn) may be shared only when every pod mounts it readOnly",
        "同一个 iSCSI 目标（iqn）只有在所有 Pod 都以 readOnly 挂载时才能共用",
    ),
    "rbd": (
        "the same Ceph RBD image (a shared monitor, same pool and image) may be shared only when every pod "
        "mounts it readOnly",
        "同一个 Ceph RBD 镜像（有共同的 monitor、相同的 pool 和 image）"
        "只有在所有 Pod 都以 readOnly 挂载时才能共用",
    ),
}


@dataclass(frozen=True, slots=True)
class Disk:
    kind: str  # one of DISK_KINDS
    identity: tuple  # what makes two disks "the same" (RBD monitors are compared separately)
    monitors: frozenset[str]
    read_only: bool
    field: str  # e.g. "spec.volumes[0]"
    volume: str  # the volume's name

    def label(self) -> str:
        return f"{self.kind} {'/'.join(str(part) for part in self.identity)}"


def disks_of(pod: PodInfo) -> tuple[Disk, ...]:
    """The pod's conflict-capable volumes, cached on the PodInfo (its spec.volumes never change)."""
    cached = pod.extra.get(NAME)
    if cached is None:
        cached = pod.extra[NAME] = tuple(_disks(pod.volumes))
    return cached


def _disks(volumes: Sequence[dict]) -> list[Disk]:
    disks = []
    for index, volume in enumerate(volumes):
        for kind in DISK_KINDS:
            source = volume.get(kind)
            if source is None:
                continue
            monitors: frozenset[str] = frozenset()
            if kind == "gcePersistentDisk":
                identity: tuple = (source.get("pdName") or "",)
            elif kind == "awsElasticBlockStore":
                identity = (source.get("volumeID") or "",)
            elif kind == "iscsi":
                identity = (source.get("iqn") or "",)
            else:  # rbd; the API server defaults an empty pool to "rbd"
                identity = (source.get("pool") or "rbd", source.get("image") or "")
                monitors = frozenset(source.get("monitors") or [])
            field = f"spec.volumes[{index}]"
            name = volume.get("name") or ""
            disks.append(Disk(kind, identity, monitors, bool(source.get("readOnly")), field, name))
    return disks


def conflicts(mine: Disk, theirs: Disk) -> bool:
    """isVolumeConflict for one pair of volumes."""
    if mine.kind != theirs.kind or mine.identity != theirs.identity:
        return False
    if mine.kind == "awsElasticBlockStore":
        return True
    if mine.kind == "rbd" and not mine.monitors & theirs.monitors:
        return False
    return not (mine.read_only and theirs.read_only)


def _conflict_why(mine: Disk, theirs: Disk, holder: str) -> Why:
    rule_en, rule_zh = _RULES[mine.kind]
    access = ("read-only", "只读") if mine.read_only else ("read-write", "读写")
    their_access = ("read-only", "只读") if theirs.read_only else ("read-write", "读写")
    return Why(
        f"The pod's {mine.field} ({mine.volume}: {mine.label()}, {access[0]}) conflicts with volume "
        f"{theirs.volume} of pod {holder} on {{node}} ({their_access[0]}): {rule_en}.",
        f"Pod 的 {mine.field}（{mine.volume}：{mine.label()}，{access[1]}）"
        f"与节点 {{node}} 上 Pod {holder} 的卷 "
        f"{theirs.volume}（{their_access[1]}）冲突：{rule_zh}。",
    )


class VolumeRestrictions(Plugin):
    name = NAME
    is_filter = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        # node name -> (the NodeInfo, its generation, its pods' disks with each pod's key, their
        # identities); recomputed only when the node's pods change.
        self._node_disks: dict[str, tuple[NodeInfo, int, tuple[tuple[Disk, str], ...], frozenset]] = {}

    def _refresh(self, node: NodeInfo) -> tuple[NodeInfo, int, tuple[tuple[Disk, str], ...], frozenset]:
        disks = tuple((disk, pod.key) for pod in node.pods for disk in disks_of(pod))
        entry = (node, node.generation, disks, frozenset(disk.identity for disk, _ in disks))
        self._node_disks[node.name] = entry
        return entry

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        claims = _claim_names(pod)
        if not disks_of(pod) and not claims:
            return _SKIPPED
        storage = getattr(snapshot, "storage", None)
        once_pod = []
        for name in claims:
            claim = storage.claim(pod.namespace, name) if storage is not None else None
            if claim is None:
                message = f'persistentvolumeclaim "{name}" not found'
                return unresolvable(NAME, message, _missing_why(message))
            if "ReadWriteOncePod" in ((claim.get("spec") or {}).get("accessModes") or ()):
                once_pod.append(name)
        if once_pod:
            holders = _holders(pod, set(once_pod), snapshot)
            if holders:
                state[NAME] = holders
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        failures = self._disk_failures(pod, nodes)
        holders = state.get(NAME)
        if holders:
            # satisfyReadWriteOncePod, after the disk check: a pod already uses the claim.
            why = _once_pod_why(holders)
            for node in nodes:
                if node.name not in failures:
                    failures[node.name] = unschedulable(NAME, ERR_REASON_RWOP_CONFLICT, why)
        return failures

    def _disk_failures(self, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        mine = disks_of(pod)
        failures: dict[str, Status] = {}
        if not mine:
            return failures
        identities = {disk.identity for disk in mine}
        cache = self._node_disks
        for node in nodes:
            if not node.pods:
                continue
            entry = cache.get(node.name)
            if entry is None or entry[0] is not node or entry[1] != node.generation:
                entry = self._refresh(node)
            if identities.isdisjoint(entry[3]):
                continue
            status = _node_conflict(mine, entry[2])
            if status is not None:
                failures[node.name] = status
        return failures


def _node_conflict(mine: tuple[Disk, ...], theirs: tuple[tuple[Disk, str], ...]) -> Status | None:
    # Upstream order: the pod's volumes outside, the node's pods inside; the first conflict wins.
    for disk in mine:
        for other, holder in theirs:
            if conflicts(disk, other):
                return unschedulable(NAME, ERR_REASON_DISK_CONFLICT, _conflict_why(disk, other, holder))
    return None


def _claim_names(pod: PodInfo) -> list[str]:
    """The claims of the pod's persistentVolumeClaim volumes (ephemeral ones are VolumeBinding's)."""
    return [
        (volume.get("persistentVolumeClaim") or {}).get("claimName") or ""
        for volume in pod.volumes
        if isinstance(volume, dict) and isinstance(volume.get("persistentVolumeClaim"), dict)
    ]


def _holders(pod: PodInfo, names: set[str], snapshot: Any) -> list[tuple[str, str]]:
    """(claim, pod) for every scheduled pod that already mounts one of the pod's RWOP claims."""
    found = []
    for other in snapshot.pods():
        if other.namespace != pod.namespace or other.key == pod.key:
            continue
        for name in set(_claim_names(other)) & names:
            found.append((name, other.name))
    return found


def _missing_why(message: str) -> Why:
    return Why(
        f"{message}: the pod mounts a PersistentVolumeClaim that does not exist, so no node can take it "
        "until the claim is created.",
        f"{message}：Pod 挂载的 PersistentVolumeClaim 不存在，创建该声明之前没有节点能接纳它。",
    )


def _once_pod_why(holders: list[tuple[str, str]]) -> Why:
    claim, holder = holders[0]
    return Why(
        f"Claim {claim} has access mode ReadWriteOncePod and pod {holder} already uses it: only one pod in "
        "the whole cluster may use such a claim.",
        f"声明 {claim} 的访问模式为 ReadWriteOncePod，且 Pod {holder} 已在使用它：整个集群中只能有一个 Pod "
        "使用这种声明。",
    )

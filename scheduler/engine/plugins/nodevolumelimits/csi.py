"""NodeVolumeLimits (v1.33, upstream `nodevolumelimits/csi.go`): a CSI driver may attach at most
`allocatable.count` volumes on a node, as the node's CSINode says. The pod's new volumes (its
claims' CSI volume handles; an unbound claim counts as one volume of its class's provisioner) plus
the distinct volumes the node's pods already use must stay within each driver's count. A node
without a CSINode, or a driver without a count, has no limit. In-tree volume migration is not
simulated (an in-tree source counts for nothing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from scheduler.engine.framework import Code, CycleState, Plugin, Status, Why, skip, unschedulable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
UNBOUND_PREFIX = "kubesim"  # upstream: a random prefix, so an unbound claim never equals a real handle

_NO_CLAIMS = skip(
    NAME,
    Why(
        "The pod mounts no PersistentVolumeClaim, so it attaches no CSI volume.",
        "Pod 没有挂载 PersistentVolumeClaim，不会挂接 CSI 卷。",
    ),
)


class MissingClaim(Exception):
    pass


def _claims(pod: PodInfo) -> list[str]:
    found = []
    for volume in pod.volumes:
        if not isinstance(volume, dict):
            continue
        if isinstance(volume.get("persistentVolumeClaim"), dict):
            found.append(volume["persistentVolumeClaim"].get("claimName") or "")
        elif volume.get("ephemeral") is not None:
            found.append(f"{pod.name}-{volume.get('name') or ''}")
    return found


def _driver_and_handle(claim: dict, storage) -> tuple[str, str]:
    """getCSIDriverInfo: the bound PV's CSI driver and handle, or the class's provisioner and a
    per-claim handle for an unbound claim ("" when it counts for nothing)."""
    meta, spec = claim.get("metadata") or {}, claim.get("spec") or {}
    pv = storage.volumes.get(spec.get("volumeName") or "") if spec.get("volumeName") else None
    if pv is not None:
        csi = (pv.get("spec") or {}).get("csi") or {}
        return csi.get("driver") or "", csi.get("volumeHandle") or ""
    class_name = spec.get("storageClassName") or ""
    sc = storage.classes.get(class_name) if class_name else None
    if sc is None:
        return "", ""
    handle = f"{UNBOUND_PREFIX}-{meta.get('namespace', '')}/{meta.get('name', '')}"
    return sc.get("provisioner") or "", handle


def attachable(pod: PodInfo, storage, new_pod: bool) -> dict[str, str]:
    """filterAttachableVolumes: unique volume name -> driver. A new pod's missing claim raises
    MissingClaim; an existing pod's is not counted."""
    found: dict[str, str] = {}
    for name in _claims(pod):
        claim = storage.claim(pod.namespace, name)
        if claim is None:
            if new_pod:
                raise MissingClaim(
                    f'looking up PVC {pod.namespace}/{name}: persistentvolumeclaim "{name}" not found'
                )
            continue
        driver, handle = _driver_and_handle(claim, storage)
        if driver and handle:
            found[f"{driver}/{handle}"] = driver
    return found


def limits(csinode: dict | None) -> dict[str, int]:
    """getVolumeLimits: each driver's allocatable count on the node."""
    found = {}
    for driver in ((csinode or {}).get("spec") or {}).get("drivers") or []:
        count = (driver.get("allocatable") or {}).get("count")
        if isinstance(count, int) and not isinstance(count, bool):
            found[driver.get("name") or ""] = count
    return found


class NodeVolumeLimits(Plugin):
    name = NAME
    is_filter = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        if not _claims(pod):
            return _NO_CLAIMS
        state[NAME] = snapshot.storage
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        storage = state.get(NAME)
        failures: dict[str, Status] = {}
        if storage is None:
            return failures
        try:
            new = attachable(pod, storage, new_pod=True)
        except MissingClaim as err:
            status = Status(Code.UNRESOLVABLE, (str(err),), NAME)
            return {node.name: status for node in nodes}
        if not new:
            return failures
        for node in nodes:
            node_limits = limits(storage.csinodes.get(node.name))
            if not node_limits:
                continue
            attached: dict[str, str] = {}
            for other in node.pods:
                attached.update(attachable(other, storage, new_pod=False))
            adding = Counter(driver for unique, driver in new.items() if unique not in attached)
            in_use = Counter(attached.values())
            for driver, count in sorted(adding.items()):
                limit = node_limits.get(driver)
                if limit is not None and in_use[driver] + count > limit:
                    why = _why(driver, limit, in_use[driver], count)
                    failures[node.name] = unschedulable(NAME, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, why)
                    break
        return failures


def _why(driver: str, limit: int, used: int, adding: int) -> Why:
    return Why(
        f"CSI driver {driver} may attach at most {limit} volumes on {{node}} (its CSINode's "
        f"allocatable.count): {used} are in use by the pods there and this pod adds {adding}.",
        f"CSI 驱动 {driver} 在节点 {{node}} 上最多可挂接 {limit} 个卷（CSINode 的 allocatable.count）："
        f"该节点上的 Pod 已使用 {used} 个，此 Pod 还要增加 {adding} 个。",
    )

"""VolumeZone (v1.33): a pod whose bound volumes carry zone or region labels may only run on nodes
in those zones and regions. Upstream `volumezone/volume_zone.go`: PreFilter reads the pod's claims
and their volumes' topology labels (a multi-zone value is `zone-a__zone-b`); Filter compares them
with the node's labels, and a node with no topology label at all passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scheduler.engine.framework import CycleState, Plugin, Status, Why, skip, unresolvable
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

NAME = "VolumeZone"
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
_GA = {BETA_ZONE: ZONE, BETA_REGION: REGION}

_NOTHING = skip(
    NAME,
    Why(
        "The pod has no bound volume with zone or region labels, so any node's zone will do.",
        "Pod 没有带可用区或地域标签的已绑定卷，任何节点的可用区都可以。",
    ),
)


def _claim_names(pod: PodInfo) -> list[str]:
    return [
        (volume.get("persistentVolumeClaim") or {}).get("claimName") or ""
        for volume in pod.volumes
        if isinstance(volume, dict) and isinstance(volume.get("persistentVolumeClaim"), dict)
    ]


def _rejected(message: str) -> Status:
    return unresolvable(
        NAME,
        message,
        Why(
            f"{message}: the pod's volumes cannot be placed in a zone.",
            f"{message}：无法确定 Pod 的卷所在的可用区。",
        ),
    )


def pv_topologies(pod: PodInfo, storage) -> list[tuple[str, frozenset[str], str]] | Status:
    """getPVbyPod: (label key, allowed values, volume name) of every bound volume, or a rejection."""
    found: list[tuple[str, frozenset[str], str]] = []
    for name in _claim_names(pod):
        if not name:
            return _rejected("PersistentVolumeClaim had no name")
        claim = storage.claim(pod.namespace, name)
        if claim is None:
            return _rejected(f'persistentvolumeclaim "{name}" not found')
        volume_name = (claim.get("spec") or {}).get("volumeName") or ""
        if not volume_name:
            class_name = (claim.get("spec") or {}).get("storageClassName") or ""
            if not class_name:
                return _rejected("PersistentVolumeClaim had no pv name and storageClass name")
            sc = storage.classes.get(class_name)
            if sc is None:
                return _rejected(f'storageclasses.storage.k8s.io "{class_name}" not found')
            if sc.get("volumeBindingMode") == "WaitForFirstConsumer":
                continue  # unbound: VolumeBinding places it
            return _rejected("PersistentVolume had no name")
        pv = storage.volumes.get(volume_name)
        if pv is None:
            return _rejected(f'persistentvolume "{volume_name}" not found')
        labels = (pv.get("metadata") or {}).get("labels") or {}
        for key in TOPOLOGY_LABELS:
            if key in labels:
                found.append((key, frozenset(str(labels[key]).split("__")), volume_name))
    return found


class VolumeZone(Plugin):
    name = NAME
    is_filter = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | None:
        topologies = pv_topologies(pod, snapshot.storage)
        if isinstance(topologies, Status):
            return topologies
        if not topologies:
            return _NOTHING
        state[NAME] = topologies
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        topologies = state.get(NAME)
        failures: dict[str, Status] = {}
        if not topologies:
            return failures
        for node in nodes:
            labels = node.labels
            if not any(key in labels for key in TOPOLOGY_LABELS):
                continue  # a node without zone labels is not constrained
            for key, values, volume in topologies:
                value = labels.get(key, labels.get(_GA.get(key, key)))
                if value is None or value not in values:
                    failures[node.name] = unresolvable(
                        NAME, ERR_REASON_CONFLICT, _conflict_why(key, values, volume, value)
                    )
                    break
        return failures


def _conflict_why(key: str, values: frozenset[str], volume: str, value: str | None) -> Why:
    wanted = ", ".join(sorted(values))
    if value is None:
        has_en, has_zh = f"has no {key} label", f"没有 {key} 标签"
    else:
        has_en, has_zh = f"has {key}={value}", f"的标签为 {key}={value}"
    return Why(
        f"The pod's PersistentVolume {volume} is in {key} {wanted}, but {{node}} {has_en}: a volume "
        "can only be attached in its own zone.",
        f"Pod 的 PersistentVolume {volume} 位于 {key} {wanted}，但节点 {{node}} {has_zh}："
        "卷只能挂载在它自己的可用区内。",
    )

"""The legacy Policy-era predicate and priority names the course notes use, per plugin."""

from __future__ import annotations

from scheduler.engine.framework import Plugin

LEGACY_FILTER_NAMES: dict[str, tuple[str, ...]] = {
    "NodeUnschedulable": ("CheckNodeUnschedulable",),
    "NodeName": ("PodFitsHost",),
    "TaintToleration": ("PodToleratesNodeTaints",),
    "NodeAffinity": ("MatchNodeSelector", "PodSelectorMatches"),
    "NodePorts": ("PodFitsHostPorts",),
    "NodeResourcesFit": ("PodFitsResources",),
    "VolumeRestrictions": ("NoDiskConflict",),
    "NodeVolumeLimits": ("MaxCSIVolumeCountPred",),
    "VolumeBinding": ("CheckVolumeBinding",),
    "VolumeZone": ("NoVolumeZoneConflict",),
    "PodTopologySpread": ("EvenPodsSpread",),
    "InterPodAffinity": ("MatchInterPodAffinity",),
}

LEGACY_SCORE_NAMES: dict[str, tuple[str, ...]] = {
    "TaintToleration": ("TaintTolerationPriority",),
    "NodeAffinity": ("NodeAffinityPriority",),
    "NodeResourcesFit": ("LeastRequestedPriority",),
    "PodTopologySpread": ("EvenPodsSpreadPriority",),
    "InterPodAffinity": ("InterPodAffinityPriority",),
    "NodeResourcesBalancedAllocation": ("BalancedResourceAllocation",),
    "ImageLocality": ("ImageLocalityPriority",),
}

_STRATEGY_LEGACY = {
    "LeastAllocated": "LeastRequestedPriority",
    "MostAllocated": "MostRequestedPriority",
    "RequestedToCapacityRatio": "RequestedToCapacityRatioPriority",
}


def legacy_names(plugin: Plugin, point: str) -> list[str]:
    if point == "filter":
        return list(LEGACY_FILTER_NAMES.get(plugin.name, ()))
    if plugin.name == "NodeResourcesFit":
        strategy = (plugin.args.get("scoringStrategy") or {}).get("type") or "LeastAllocated"
        return [_STRATEGY_LEGACY.get(strategy, "LeastRequestedPriority")]
    return list(LEGACY_SCORE_NAMES.get(plugin.name, ()))

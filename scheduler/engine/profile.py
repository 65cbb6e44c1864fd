"""A scheduling profile: which plugins filter, which score and with what weight."""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.engine.framework import Plugin
from scheduler.engine.registry import new_plugin

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# Upstream's default multiPoint order (apis/config/v1/default_plugins.go), limited to the plugins
# we simulate (no DRA), with the default score weights.
DEFAULT_PLUGINS: list[tuple[str, int]] = [
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
]


@dataclass(slots=True)
class Profile:
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    filters: list[Plugin] = field(default_factory=list)
    scorers: list[tuple[Plugin, int]] = field(default_factory=list)
    post_filter: bool = True  # DefaultPreemption, upstream's only in-tree PostFilter
    preemption_args: dict[str, int] = field(default_factory=dict)  # preempt()'s keyword arguments
    # None: the configuration's global value, itself unset (adaptive); see cycle.nodes_to_find.
    percentage_of_nodes_to_score: int | None = None

    @classmethod
    def build(
        cls,
        plugins: list[tuple[str, int]],
        args: dict[str, dict] | None = None,
        scheduler_name: str = DEFAULT_SCHEDULER_NAME,
        disabled_filters: frozenset[str] = frozenset(),
        disabled_scores: frozenset[str] = frozenset(),
    ) -> Profile:
        """Instantiate each plugin once; it serves every extension point it implements."""
        args = args or {}
        profile = cls(scheduler_name=scheduler_name)
        for name, weight in plugins:
            plugin = new_plugin(name, args.get(name))
            if plugin.is_filter and name not in disabled_filters:
                profile.filters.append(plugin)
            if plugin.is_score and name not in disabled_scores:
                profile.scorers.append((plugin, weight or 1))
        return profile


def default_profile(args: dict[str, dict] | None = None) -> Profile:
    return Profile.build(DEFAULT_PLUGINS, args)

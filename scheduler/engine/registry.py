"""The explicit plugin registry: plugin name -> the class that implements it.

Written out by hand, as upstream's plugins/registry.go: no import-time discovery. Each plugin is
a package under `plugins/`, laid out like upstream's (`noderesources/fit.py`, its explanation
texts in `why.py` beside it).
"""

from __future__ import annotations

from scheduler.engine.framework import Plugin
from scheduler.engine.plugins.imagelocality.image_locality import ImageLocality
from scheduler.engine.plugins.interpodaffinity.plugin import InterPodAffinity
from scheduler.engine.plugins.nodeaffinity.node_affinity import NodeAffinity
from scheduler.engine.plugins.nodename.node_name import NodeName
from scheduler.engine.plugins.nodeports.node_ports import NodePorts
from scheduler.engine.plugins.noderesources.balanced_allocation import BalancedAllocation
from scheduler.engine.plugins.noderesources.fit import NodeResourcesFit
from scheduler.engine.plugins.nodeunschedulable.node_unschedulable import NodeUnschedulable
from scheduler.engine.plugins.nodevolumelimits.csi import NodeVolumeLimits
from scheduler.engine.plugins.podtopologyspread.plugin import PodTopologySpread
from scheduler.engine.plugins.tainttoleration.taint_toleration import TaintToleration
from scheduler.engine.plugins.volumebinding.plugin import VolumeBinding
from scheduler.engine.plugins.volumerestrictions.volume_restrictions import VolumeRestrictions
from scheduler.engine.plugins.volumezone.volume_zone import VolumeZone

PLUGINS: dict[str, type[Plugin]] = {
    "NodeUnschedulable": NodeUnschedulable,
    "NodeName": NodeName,
    "TaintToleration": TaintToleration,
    "NodeAffinity": NodeAffinity,
    "NodePorts": NodePorts,
    "NodeResourcesFit": NodeResourcesFit,
    "VolumeRestrictions": VolumeRestrictions,
    "NodeVolumeLimits": NodeVolumeLimits,
    "VolumeBinding": VolumeBinding,
    "VolumeZone": VolumeZone,
    "PodTopologySpread": PodTopologySpread,
    "InterPodAffinity": InterPodAffinity,
    "NodeResourcesBalancedAllocation": BalancedAllocation,
    "ImageLocality": ImageLocality,
}


class UnknownPlugin(KeyError):
    pass


def plugin_class(name: str) -> type[Plugin]:
    try:
        return PLUGINS[name]
    except KeyError:
        raise UnknownPlugin(name) from None


def new_plugin(name: str, args: dict | None = None) -> Plugin:
    return plugin_class(name)(args)

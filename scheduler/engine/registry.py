"""The explicit plugin registry: plugin name -> the module and class that implement it."""

from __future__ import annotations

from importlib import import_module

from scheduler.engine.framework import Plugin

# Written out by hand, as upstream's plugins/registry.go: no import-time discovery.
PLUGINS: dict[str, str] = {
    "NodeUnschedulable": "node_unschedulable:NodeUnschedulable",
    "NodeName": "node_name:NodeName",
    "TaintToleration": "taint_toleration:TaintToleration",
    "NodeAffinity": "node_affinity:NodeAffinity",
    "NodePorts": "node_ports:NodePorts",
    "NodeResourcesFit": "node_resources_fit:NodeResourcesFit",
    "VolumeRestrictions": "volume_restrictions:VolumeRestrictions",
    "PodTopologySpread": "pod_topology_spread:PodTopologySpread",
    "InterPodAffinity": "inter_pod_affinity:InterPodAffinity",
    "NodeResourcesBalancedAllocation": "balanced_allocation:BalancedAllocation",
    "ImageLocality": "image_locality:ImageLocality",
}


class UnknownPlugin(KeyError):
    pass


def plugin_class(name: str) -> type[Plugin]:
    try:
        module_name, class_name = PLUGINS[name].split(":")
    except KeyError:
        raise UnknownPlugin(name) from None
    module = import_module(f"scheduler.engine.plugins.{module_name}")
    return getattr(module, class_name)


def new_plugin(name: str, args: dict | None = None) -> Plugin:
    return plugin_class(name)(args)

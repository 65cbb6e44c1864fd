"""The teacher's scheduler settings view, server side: each profile of the cluster's configuration
described with its differences from the defaults, a weight edited into config.yaml, and the save
(the ConfigMap kube-system/kube-scheduler, written as the caller)."""

from __future__ import annotations

import yaml

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster
from scheduler import configuration
from scheduler.configuration import InvalidConfiguration
from scheduler.engine.config import API_VERSION, SchedulerConfig
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME, Profile, default_profile


def describe(config: SchedulerConfig) -> list[dict]:
    return [describe_profile(profile) for profile in config.profiles.values()]


def describe_profile(profile: Profile) -> dict:
    """The profile's plugins, weights and args, and `diff`: what differs from the default profile."""
    default = default_profile()
    default_weights = {plugin.name: weight for plugin, weight in default.scorers}
    default_filters = [plugin.name for plugin in default.filters]
    filters = [plugin.name for plugin in profile.filters]
    weights = {plugin.name: weight for plugin, weight in profile.scorers}
    diff: list[dict] = []
    for name in default_filters:
        if name not in filters:
            diff.append({"change": "disabled", "point": "filter", "plugin": name})
    for name in filters:
        if name not in default_filters:
            diff.append({"change": "enabled", "point": "filter", "plugin": name})
    for name, weight in default_weights.items():
        if name not in weights:
            diff.append({"change": "disabled", "point": "score", "plugin": name, "from": weight})
        elif weights[name] != weight:
            diff.append(
                {"change": "weight", "point": "score", "plugin": name, "from": weight, "to": weights[name]}
            )
    for name, weight in weights.items():
        if name not in default_weights:
            diff.append({"change": "enabled", "point": "score", "plugin": name, "to": weight})
    args = {}
    for plugin in [*profile.filters, *(p for p, _ in profile.scorers)]:
        if plugin.args and plugin.name not in args:
            args[plugin.name] = plugin.args
            diff.append({"change": "args", "plugin": plugin.name, "to": plugin.args})
    if profile.preemption_args:
        diff.append({"change": "args", "plugin": "DefaultPreemption", "to": profile.preemption_args})
    if not profile.post_filter:
        diff.append({"change": "disabled", "point": "postFilter", "plugin": "DefaultPreemption"})
    if profile.percentage_of_nodes_to_score is not None:
        diff.append({"change": "percentageOfNodesToScore", "to": profile.percentage_of_nodes_to_score})
    return {
        "schedulerName": profile.scheduler_name,
        "filters": filters,
        "scores": [
            {"name": plugin.name, "weight": weight, "defaultWeight": default_weights.get(plugin.name)}
            for plugin, weight in profile.scorers
        ],
        "postFilter": profile.post_filter,
        "percentageOfNodesToScore": profile.percentage_of_nodes_to_score,
        "args": args,
        "diff": diff,
    }


def reading(text: str | None) -> dict:
    """What the view shows for `text`: the profiles and their diffs, or the located error."""
    try:
        config = configuration.parse(text)
    except InvalidConfiguration as err:
        return {"text": text or "", "error": str(err), "profiles": None}
    return {"text": text or "", "error": None, "profiles": describe(config)}


def with_weight(text: str | None, scheduler_name: str, plugin: str, weight: int) -> str:
    """config.yaml with `plugin`'s score weight in profile `scheduler_name` set (an entry in
    plugins.score.enabled; removed when it is the default again). Comments are not kept."""
    configuration.parse(text)  # an invalid file is not edited: InvalidConfiguration
    data = yaml.safe_load(text) if text and text.strip() else None
    data = data or {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration"}
    profiles = data.setdefault("profiles", []) or []
    data["profiles"] = profiles
    if not profiles:
        profiles.append({"schedulerName": DEFAULT_SCHEDULER_NAME})
    spec = next(
        (p for p in profiles if (p.get("schedulerName") or DEFAULT_SCHEDULER_NAME) == scheduler_name), None
    )
    if spec is None:
        raise InvalidConfiguration(f'profiles: no profile has schedulerName "{scheduler_name}"')
    enabled = spec.setdefault("plugins", {}).setdefault("score", {}).setdefault("enabled", [])
    enabled[:] = [entry for entry in enabled if entry.get("name") != plugin]
    default = {p.name: w for p, w in default_profile().scorers}.get(plugin)
    if weight != default:
        enabled.append({"name": plugin, "weight": weight})
    if not enabled:
        del spec["plugins"]["score"]["enabled"]
        if not spec["plugins"]["score"]:
            del spec["plugins"]["score"]
        if not spec["plugins"]:
            del spec["plugins"]
    result = yaml.safe_dump(data, sort_keys=False, default_flow_style=False)
    configuration.parse(result)
    return result


def save(cluster: Cluster, text: str, actor: Actor) -> dict:
    """Write config.yaml into the ConfigMap (created when missing); only a valid file is saved
    from the page (kubectl may still write any, which the scheduler then refuses)."""
    configuration.parse(text)
    try:
        found = api.get(cluster, "ConfigMap", configuration.NAMESPACE, configuration.NAME)
    except ApiError:
        found = None
    if found is None:
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": configuration.NAME, "namespace": configuration.NAMESPACE},
            "data": {configuration.KEY: text},
        }
        return api.create(cluster, body, actor)
    found["data"] = {**(found.get("data") or {}), configuration.KEY: text}
    return api.update(cluster, found, actor)

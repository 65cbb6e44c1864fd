"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) → Profile.

Unknown or invalid fields are rejected with an error that names their path, e.g.
`profiles[0].pluginConfig[0].args.scoringStrategy.tpye: unknown field`.
"""

from __future__ import annotations

from dataclasses import dataclass

from scheduler.engine.profile import DEFAULT_PLUGINS, DEFAULT_SCHEDULER_NAME, Profile
from scheduler.engine.registry import PLUGINS, plugin_class

API_VERSION = "kubescheduler.config.k8s.io/v1"

_TOP_FIELDS = {
    "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "healthzBindAddress",
    "metricsBindAddress", "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
    "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive",
}  # fmt: skip
_PROFILE_FIELDS = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}
_EXTENSION_POINTS = {
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score", "reserve",
    "permit", "preBind", "bind", "postBind", "multiPoint",
}  # fmt: skip
# Fields of each plugin's args type, nested as {field: sub-spec}; a sub-spec of None takes any value.
_ARGS_SCHEMAS: dict[str, dict] = {
    "NodeResourcesFit": {
        "ignoredResources": None,
        "ignoredResourceGroups": None,
        "scoringStrategy": {
            "type": None,
            "resources": [{"name": None, "weight": None}],
            "requestedToCapacityRatio": {"shape": [{"utilization": None, "score": None}]},
        },
    },
    "NodeResourcesBalancedAllocation": {"resources": [{"name": None, "weight": None}]},
    "NodeAffinity": {"addedAffinity": None},
    "InterPodAffinity": {"hardPodAffinityWeight": None, "ignorePreferredTermsOfExistingPods": None},
    "PodTopologySpread": {"defaultConstraints": None, "defaultingType": None},
    "DefaultPreemption": {"minCandidateNodesPercentage": None, "minCandidateNodesAbsolute": None},
}


# Upstream's plugins KubeSim has no class for, named in configurations: the queue's sort, the
# binder and the scheduling gates always run; DefaultPreemption is the profile's post_filter.
FRAMEWORK_PLUGINS = ("PrioritySort", "DefaultBinder", "SchedulingGates", "DefaultPreemption")


class ConfigError(ValueError):
    """An invalid scheduler configuration; the message starts with the field path."""


@dataclass(slots=True)
class PluginSet:
    enabled: list[tuple[str, int]]
    disabled: set[str]


def _check_fields(value: object, allowed: set[str], path: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{path or '<root>'}: must be a mapping")
    for key in value:
        if key not in allowed:
            raise ConfigError(f"{path + '.' if path else ''}{key}: unknown field")
    return value


def _check_schema(value: object, schema: object, path: str) -> None:
    if schema is None:
        return
    if isinstance(schema, list):
        if not isinstance(value, list):
            raise ConfigError(f"{path}: must be a list")
        for index, item in enumerate(value):
            _check_schema(item, schema[0], f"{path}[{index}]")
        return
    _check_fields(value, set(schema), path)  # type: ignore[arg-type]
    for key, item in value.items():  # type: ignore[union-attr]
        _check_schema(item, schema[key], f"{path}.{key}")  # type: ignore[index]


def _plugin_set(value: object, path: str) -> PluginSet:
    _check_fields(value, {"enabled", "disabled"}, path)
    enabled: list[tuple[str, int]] = []
    disabled: set[str] = set()
    for key in ("enabled", "disabled"):
        for index, plugin in enumerate(value.get(key) or []):  # type: ignore[union-attr]
            where = f"{path}.{key}[{index}]"
            _check_fields(plugin, {"name", "weight"}, where)
            name = plugin.get("name")
            if name != "*" and name not in PLUGINS and name not in FRAMEWORK_PLUGINS:
                raise ConfigError(f"{where}.name: unknown plugin {name!r}; known: {', '.join(PLUGINS)}")
            weight = plugin.get("weight") or 0
            if not isinstance(weight, int) or weight < 0 or weight > 100:
                raise ConfigError(f"{where}.weight: must be an integer in the range [0, 100]")
            if key == "enabled":
                enabled.append((name, weight))
            else:
                disabled.add(name)
    return PluginSet(enabled, disabled)


def _merge(defaults: list[tuple[str, int]], custom: PluginSet) -> list[tuple[str, int]]:
    """mergePluginSet: re-configured defaults keep their place, new plugins are appended."""
    custom_by_name = dict(custom.enabled)
    merged: list[tuple[str, int]] = []
    if "*" not in custom.disabled:
        for name, weight in defaults:
            if name in custom.disabled:
                continue
            merged.append((name, custom_by_name.get(name, weight)))
    seen = {name for name, _ in merged}
    merged.extend((name, weight) for name, weight in custom.enabled if name not in seen)
    return merged


def _point_order(
    multipoint: list[tuple[str, int]], point: PluginSet | None, capable: str
) -> list[tuple[str, int]]:
    """Expand multiPoint into one extension point: its own overrides first, then the rest."""
    candidates = [(n, w) for n, w in multipoint if getattr(plugin_class(n), capable)]
    if point is None:
        return candidates
    if "*" in point.disabled:
        candidates = []
    candidates = [(n, w) for n, w in candidates if n not in point.disabled]
    overrides = [(n, w) for n, w in point.enabled if getattr(plugin_class(n), capable)]
    override_names = {n for n, _ in overrides}
    weights = dict(candidates)
    overrides = [(n, w or weights.get(n, 0)) for n, w in overrides]
    return overrides + [(n, w) for n, w in candidates if n not in override_names]


@dataclass(slots=True)
class SchedulerConfig:
    """Every profile of one KubeSchedulerConfiguration, by schedulerName in the file's order."""

    profiles: dict[str, Profile]
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10

    def profile_for(self, scheduler_name: str) -> Profile | None:
        """The profile that runs `scheduler_name`; None: no profile does, the pod is not ours."""
        return self.profiles.get(scheduler_name)


def default_config() -> SchedulerConfig:
    return SchedulerConfig({DEFAULT_SCHEDULER_NAME: Profile.build(DEFAULT_PLUGINS)})


def load_config(config: dict | None) -> SchedulerConfig:
    """Validate a whole configuration and build each of its profiles (upstream's defaulting: no
    profile is one default-scheduler profile; a profile without schedulerName is default-scheduler)."""
    if not config:
        return default_config()
    _check_fields(config, _TOP_FIELDS, "")
    if config.get("apiVersion") not in (None, API_VERSION):
        raise ConfigError(f"apiVersion: must be {API_VERSION!r}, got {config.get('apiVersion')!r}")
    if config.get("kind") not in (None, "KubeSchedulerConfiguration"):
        raise ConfigError(f"kind: must be 'KubeSchedulerConfiguration', got {config.get('kind')!r}")
    percentage = _percentage(config.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
    profiles = config.get("profiles") or [{}]
    if not isinstance(profiles, list):
        raise ConfigError("profiles: must be a list")
    initial, maximum = _backoffs(config)
    built: dict[str, Profile] = {}
    for index, spec in enumerate(profiles):
        profile = _build_profile(spec, f"profiles[{index}]", percentage)
        if profile.scheduler_name in built:
            raise ConfigError(f'profiles[{index}].schedulerName: Duplicate value: "{profile.scheduler_name}"')
        built[profile.scheduler_name] = profile
    return SchedulerConfig(built, initial, maximum)


def _backoffs(config: dict) -> tuple[int, int]:
    """podInitialBackoffSeconds (default 1, > 0) and podMaxBackoffSeconds (default 10, at least
    the initial), validated as ValidateKubeSchedulerConfiguration does."""
    initial = config.get("podInitialBackoffSeconds", 1)
    maximum = config.get("podMaxBackoffSeconds", 10)
    for name, value in (("podInitialBackoffSeconds", initial), ("podMaxBackoffSeconds", maximum)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name}: Invalid value: {value!r}: must be an integer")
    if initial <= 0:
        raise ConfigError(f"podInitialBackoffSeconds: Invalid value: {initial}: must be greater than 0")
    if maximum < initial:
        raise ConfigError(
            f"podMaxBackoffSeconds: Invalid value: {maximum}: must be greater than or equal to "
            "PodInitialBackoffSeconds"
        )
    return initial, maximum


def profile_from_config(config: dict | None, scheduler_name: str = DEFAULT_SCHEDULER_NAME) -> Profile:
    """Build the profile named `scheduler_name` (the first profile when there is only one)."""
    profiles = load_config(config).profiles
    if scheduler_name in profiles:
        return profiles[scheduler_name]
    if len(profiles) == 1:
        return next(iter(profiles.values()))
    raise ConfigError(f"profiles: no profile has schedulerName {scheduler_name!r}")


def _percentage(value: object, path: str) -> int | None:
    """validatePercentageOfNodesToScore: unset (None) or an integer in [0, 100]; 0 is adaptive."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise ConfigError(f"{path}: Invalid value: {value}: not in valid range [0-100]")
    return value


def build_profile(value: object, path: str, percentage: int | None = None) -> Profile:
    """One `profiles[]` entry on its own (the what-if's profile override), its errors under `path`."""
    return _build_profile(value, path, percentage)


def _build_profile(value: object, path: str, percentage: int | None = None) -> Profile:
    spec = _check_fields(value, _PROFILE_FIELDS, path)
    plugins = _check_fields(spec.get("plugins") or {}, _EXTENSION_POINTS, f"{path}.plugins")
    points = {point: _plugin_set(item, f"{path}.plugins.{point}") for point, item in plugins.items()}
    post_filter = _preemption_enabled(points)
    points = {point: _without_framework(item) for point, item in points.items()}
    multipoint = _merge(DEFAULT_PLUGINS, points.get("multiPoint") or PluginSet([], set()))
    filters = _point_order(multipoint, points.get("filter"), "is_filter")
    scores = _point_order(multipoint, points.get("score"), "is_score")
    args = _plugin_args(spec.get("pluginConfig") or [], f"{path}.pluginConfig")
    instances = {}
    for name in dict.fromkeys([n for n, _ in filters] + [n for n, _ in scores]):
        try:
            instances[name] = plugin_class(name)(args.get(name, (None, None))[1])
        except ValueError as err:  # a plugin rejected its args; it names the field inside them
            raise ConfigError(f"{args[name][0]}.{err}") from None
    own = _percentage(spec.get("percentageOfNodesToScore"), f"{path}.percentageOfNodesToScore")
    preemption = args.get("DefaultPreemption")
    return Profile(
        scheduler_name=spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME,
        filters=[instances[name] for name, _ in filters],
        scorers=[(instances[name], weight or 1) for name, weight in scores],
        post_filter=post_filter,
        preemption_args=_preemption_args(*preemption) if preemption else {},
        percentage_of_nodes_to_score=percentage if own is None else own,
    )


def _preemption_enabled(points: dict[str, PluginSet]) -> bool:
    for point in ("multiPoint", "postFilter"):
        disabled = points[point].disabled if point in points else set()
        if "DefaultPreemption" in disabled or "*" in disabled:
            enabled = points[point].enabled if point in points else []
            if not any(name == "DefaultPreemption" for name, _ in enabled):
                return False
    return True


def _preemption_args(path: str, args: dict) -> dict[str, int]:
    """ValidateDefaultPreemptionArgs, as the keyword arguments of preempt()."""
    percentage = args.get("minCandidateNodesPercentage", 10)
    absolute = args.get("minCandidateNodesAbsolute", 100)
    if not isinstance(percentage, int) or not 0 <= percentage <= 100:
        raise ConfigError(
            f"{path}.minCandidateNodesPercentage: Invalid value: {percentage}: not in valid range [0, 100]"
        )
    if not isinstance(absolute, int) or absolute < 0:
        raise ConfigError(
            f"{path}.minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)"
        )
    if percentage == 0 and absolute == 0:
        raise ConfigError(f"{path}: Invalid value: 0: numbers must not both be zero")
    return {"min_candidate_nodes_percentage": percentage, "min_candidate_nodes_absolute": absolute}


def _without_framework(plugins: PluginSet) -> PluginSet:
    return PluginSet(
        [(n, w) for n, w in plugins.enabled if n not in FRAMEWORK_PLUGINS],
        plugins.disabled - set(FRAMEWORK_PLUGINS),
    )


def _plugin_args(configs: object, path: str) -> dict[str, tuple[str, dict]]:
    """{plugin name: (path of its args, args)} with the args' fields checked."""
    if not isinstance(configs, list):
        raise ConfigError(f"{path}: must be a list")
    args: dict[str, tuple[str, dict]] = {}
    for index, entry in enumerate(configs):
        where = f"{path}[{index}]"
        _check_fields(entry, {"name", "args"}, where)
        name = entry.get("name")
        if name not in PLUGINS and name != "DefaultPreemption":
            raise ConfigError(f"{where}.name: unknown plugin {name!r}")
        raw = dict(entry.get("args") or {})
        raw.pop("apiVersion", None)
        raw.pop("kind", None)
        _check_schema(raw, _ARGS_SCHEMAS.get(name, {}), f"{where}.args")
        args[name] = (f"{where}.args", raw)
    return args

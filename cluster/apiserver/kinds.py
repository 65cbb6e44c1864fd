"""The kind registry: every fact about a kind, written once.

Discovery, OpenAPI, the REST router's subresources, the console's resource names, the flow
snapshot, the labs' manifest kinds, check vocabulary and reset order, and the page's kind list
are all read from here (docs/adding-a-kind.md is the checklist for a new kind).

This module imports nothing of the project, so any module may import it. The built-in kinds,
each with its hooks (defaults, validation, table, describe) in its own module
`cluster/kinds/<group>/<kind>.py`, are listed in `cluster/kinds/builtin.py` and registered by
`cluster/apps.py` when Django is ready (docs/architecture.md rule 10).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

# REST verb -> the HTTP methods that carry it on a subresource path.
_HTTP = {"get": ("GET",), "update": ("PUT",), "patch": ("PATCH",), "create": ("POST",)}


@dataclass(frozen=True, slots=True)
class Subresource:
    name: str  # the path segment: status, scale, log, binding, exec, ...
    kind: str  # the kind discovery names for it: Pod, Scale, Binding, ...
    verbs: tuple[str, ...]
    group: str = ""
    version: str = "v1"

    @property
    def methods(self) -> tuple[str, ...]:
        """The HTTP methods the router accepts on this subresource, in verb order."""
        return tuple(m for verb in self.verbs for m in _HTTP.get(verb, ()))


def status_subresource(kind: str, group: str = "") -> Subresource:
    """PUT on the object keeps the stored status; status is written through this path."""
    return Subresource("status", kind, ("get", "patch", "update"), group)


def scale_subresource() -> Subresource:
    return Subresource("scale", "Scale", ("get", "patch", "update"), "autoscaling")


# `describe` value of a kind whose describe output is its stored YAML, as the console shows it.
YAML_ONLY = "yaml-only"


@dataclass(frozen=True, slots=True)
class Conversion:
    """Another version a kind is served in besides the stored one (autoscaling/v1 of the v2
    HorizontalPodAutoscalers), as kube-apiserver converts between a group's versions: a body sent
    in it is converted to the stored version before anything reads it, an answer back after."""

    version: str
    to_stored: Callable[[dict], dict]
    from_stored: Callable[[dict], dict]


@dataclass(frozen=True, slots=True, kw_only=True)
class BuiltinObjects:
    """Objects of a kind that every cluster has from its birth, as kube-apiserver's bootstrap
    creates them (the system namespaces, the `kubernetes` Service, the system PriorityClasses).
    They are served without being stored, so a new cluster's revision does not move: reads list
    them beside the stored ones, and a create of one answers AlreadyExists."""

    keys: tuple[tuple[str, str], ...] = ()  # (namespace, name) of each; namespace "" when cluster-scoped
    build: Callable[[Any, str, str], dict]  # (cluster, namespace, name) -> the object
    # A write of one stores it first, and a stored one is then served (the `kubernetes` Service);
    # otherwise a write finds no object to change.
    stored_on_write: bool = False
    # Deleting one is refused with this error (name -> ApiError), as upstream's storage refuses it.
    refuse_delete: Callable[[str], Exception] | None = None
    # Listed only to the API's clients (kubectl, the console: `served=True`), not to the cluster's
    # own readers (informers, the page's snapshot, lab checks, a reset): kube-system's objects.
    clients_only: tuple[tuple[str, str], ...] = ()  # of `keys`
    # One object of this name in every namespace (the `default` ServiceAccount, `kube-root-ca.crt`,
    # which upstream's controllers keep in each): `namespaces(cluster)` lists the namespaces.
    in_every_namespace: str = ""
    namespaces: Callable[[Any], list[str]] | None = None

    def has(self, namespace: str, name: str) -> bool:
        if self.in_every_namespace:
            return bool(namespace) and name == self.in_every_namespace
        return (namespace, name) in self.keys

    def find(self, cluster, namespace: str, name: str) -> dict | None:
        if not self.has(namespace, name):
            return None
        if self.in_every_namespace and namespace not in self.namespaces(cluster):
            return None
        return self.build(cluster, namespace, name)

    def every_key(self, cluster) -> tuple[tuple[str, str], ...]:
        if self.in_every_namespace:
            return tuple((namespace, self.in_every_namespace) for namespace in self.namespaces(cluster))
        return self.keys

    def every(self, cluster) -> list[dict]:
        return [self.build(cluster, namespace, name) for namespace, name in self.every_key(cluster)]


@dataclass(frozen=True, slots=True, kw_only=True)
class KindInfo:
    kind: str
    plural: str
    singular: str
    group: str  # "" for the core group
    version: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()  # "all": listed by `kubectl get all`
    subresources: tuple[Subresource, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    # How metadata.name is validated: "subdomain" (RFC 1123, most kinds), "label" (Namespaces) or
    # "path" (a path segment: RBAC's kinds, whose names hold colons),
    # as the kind's strategy's ValidateObjectMeta is given.
    name_rule: str = "subdomain"
    # The kind's own fieldSelector labels besides metadata.name/namespace, as its upstream
    # strategy's ToSelectableFields lists them.
    field_selectors: tuple[str, ...] = ()
    # Metadata a write through the status subresource may change besides status, as the kind's
    # status strategy lets it through (a Deployment's: its annotations, where the controller
    # writes the revision); the rest of the object is kept as stored.
    status_metadata: tuple[str, ...] = ()
    # A controller-managed owner of pods: generation starts at 1, the flow snapshot and the page
    # list it under workloads, the controller manager watches it.
    workload: bool = False
    # The field whose change bumps metadata.generation on update, for a kind that has one (a
    # PodTemplate's strategy compares its `template`, the others their `spec`).
    generation_from: str = "spec"
    console: bool = True  # the web console's `get`/`describe` know its names
    lab_manifest: bool = True  # a lab's manifests may create it
    lab_check: bool = True  # a lab's checks may name it
    # Lab sandbox resets delete kinds in ascending rank, owners before what they own, so that no
    # controller recreates what was just removed; None: a reset leaves it alone.
    reset_rank: int | None = 50
    # Hooks. defaults(obj) fills server-side defaults in place; validate(errors, obj, old) adds
    # field errors; table is a kubeapi.tables.TableSpec; describe(reader, namespace, name) -> text
    # or YAML_ONLY. A registered kind sets all four (a no-op counts, but must be said).
    defaults: Callable[[dict], None] | None = None
    validate: Callable[[Any, dict, dict | None], None] | None = None
    table: Any = None
    describe: Callable[[Any, str, str], str] | str | None = None
    # Objects every cluster has without anyone creating them (None for most kinds).
    builtins: BuiltinObjects | None = None
    # What the strategy's PrepareForCreate adds beyond defaults, once, on create only (a Pod's
    # SchedulingGated condition); None for most kinds.
    prepare_for_create: Callable[[dict], None] | None = None
    # Other versions it is served in, after `version` (the stored and preferred one) in discovery.
    conversions: tuple[Conversion, ...] = ()
    # Set on the view of the kind in one of its other versions (`in_version`): the stored version.
    stored_version: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    group_version = api_version

    @property
    def scope(self) -> str:
        return "Namespaced" if self.namespaced else "Cluster"

    @property
    def qualified(self) -> str:
        """The resource as error messages name it: "pods", "deployments.apps"."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def kubectl_prefix(self) -> str:
        """The name kubectl prints before a slash: `pod`, `replicaset.apps`."""
        return f"{self.singular}.{self.group}" if self.group else self.singular

    @property
    def names(self) -> tuple[str, ...]:
        """Every name kubectl resolves to this kind: plural, singular, short names, kind, plural.group."""
        qualified = (f"{self.plural}.{self.group}", f"{self.singular}.{self.group}") if self.group else ()
        return (self.plural, self.singular, *self.short_names, self.kind.lower(), *qualified)

    @property
    def versions(self) -> tuple[str, ...]:
        """Every version it is served in, the stored one first."""
        return (self.stored_version or self.version, *(c.version for c in self.conversions))

    def in_version(self, version: str) -> KindInfo | None:
        """The kind as served in `version` (itself for the stored one); None if not served in it."""
        if version == self.version:
            return self
        if not any(c.version == version for c in self.conversions):
            return None
        subresources = tuple(
            replace(s, version=version) if s.group == self.group else s for s in self.subresources
        )
        return replace(self, version=version, stored_version=self.version, subresources=subresources)

    def to_stored(self, obj: dict) -> dict:
        """A body in this view's version as the stored version's (unchanged for the stored one)."""
        conversion = next((c for c in self.conversions if c.version == self.version), None)
        return conversion.to_stored(obj) if self.stored_version and conversion else obj

    def from_stored(self, obj: dict) -> dict:
        """A stored object (or a List of them) in this view's version."""
        conversion = next((c for c in self.conversions if c.version == self.version), None)
        if not self.stored_version or conversion is None or not isinstance(obj, dict):
            return obj
        if obj.get("kind") == f"{self.kind}List":
            return {
                **obj,
                "apiVersion": self.api_version,
                "items": [conversion.from_stored(i) for i in obj.get("items") or []],
            }
        if obj.get("kind") == self.kind:
            return conversion.from_stored(obj)
        return obj

    def subresource(self, name: str) -> Subresource | None:
        return next((s for s in self.subresources if s.name == name), None)

    @property
    def has_status(self) -> bool:
        return self.subresource("status") is not None

    @property
    def has_scale(self) -> bool:
        return self.subresource("scale") is not None


# Registration order is discovery's order of groups ("" first) and of kinds within a group.
KINDS: dict[str, KindInfo] = {}
BY_RESOURCE: dict[tuple[str, str], KindInfo] = {}


class RegistryError(ValueError):
    pass


# Bumped by every (un)registration: caches of documents derived from the registry key on it.
_generation = 0


def generation() -> int:
    return _generation


def register(info: KindInfo) -> KindInfo:
    """Serve `info` from now on; every view of the registry sees it at once."""
    if info.kind in KINDS or (info.group, info.plural) in BY_RESOURCE:
        raise RegistryError(f"kind {info.kind} ({info.qualified}) is already registered")
    missing = [h for h in ("defaults", "validate", "table", "describe") if getattr(info, h) is None]
    if missing:
        raise RegistryError(f"kind {info.kind} needs hooks: {', '.join(missing)}")
    global _generation
    KINDS[info.kind] = info
    BY_RESOURCE[(info.group, info.plural)] = info
    _generation += 1
    return info


def unregister(kind: str) -> None:
    global _generation
    info = KINDS.pop(kind)
    BY_RESOURCE.pop((info.group, info.plural), None)
    _generation += 1


def kind_info(kind: str) -> KindInfo | None:
    return KINDS.get(kind)


def by_resource(group: str, version: str, plural: str) -> KindInfo | None:
    """The kind served at /apis/<group>/<version>/<plural>, as that version (`in_version`)."""
    info = BY_RESOURCE.get((group, plural))
    return info.in_version(version) if info else None


def by_name(name: str) -> KindInfo | None:
    """A kind by its Kind ("Pod") or any name kubectl resolves ("pods", "po", "replicaset.apps")."""
    if name in KINDS:
        return KINDS[name]
    lowered = name.lower()
    return next((info for info in KINDS.values() if lowered in info.names), None)


def group_versions(group: str) -> tuple[str, ...]:
    """The versions a group is served in, the preferred (stored) first."""
    found: dict[str, None] = {}
    for info in KINDS.values():
        if info.group == group:
            found.update(dict.fromkeys(info.versions))
    return tuple(found)


def kinds_in(group: str, version: str) -> list[KindInfo]:
    """The group's kinds served in `version`, each as that version."""
    return [v for info in KINDS.values() if info.group == group and (v := info.in_version(version))]


def groups() -> dict[str, list[KindInfo]]:
    """Group name -> its kinds, in the order discovery lists groups ("" first)."""
    found: dict[str, list[KindInfo]] = {"": []}
    for info in KINDS.values():
        found.setdefault(info.group, []).append(info)
    return {group: kinds for group, kinds in found.items() if kinds}


def workload_kinds() -> tuple[str, ...]:
    return tuple(info.kind for info in KINDS.values() if info.workload)


def lab_manifest_kinds() -> tuple[str, ...]:
    return tuple(info.kind for info in KINDS.values() if info.lab_manifest)


def lab_check_kinds() -> tuple[str, ...]:
    return tuple(info.kind for info in KINDS.values() if info.lab_check)


def reset_order() -> tuple[str, ...]:
    ranked = [info for info in KINDS.values() if info.reset_rank is not None]
    return tuple(info.kind for info in sorted(ranked, key=lambda info: info.reset_rank))


def page_kinds() -> dict:
    """What the page's JavaScript needs to know about kinds (served in its boot data)."""
    return {
        "workloads": list(workload_kinds()),
        "resources": {
            info.kind: {
                "plural": info.plural,
                "group": info.group,
                "version": info.version,
                "namespaced": info.namespaced,
                "shortNames": list(info.short_names),
            }
            for info in KINDS.values()
        },
    }

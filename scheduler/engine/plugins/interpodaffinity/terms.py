"""Pod (anti-)affinity terms parsed as framework.AffinityTerm, cached on each PodInfo.

A term covers the namespaces it lists plus those its namespaceSelector matches; with neither set it
means the pod's own namespace. KubeSim has no Namespace objects in the engine: a namespaceSelector
`{}` matches every namespace, and a non-empty one matches the namespaces whose labels the snapshot
carries in the optional `snapshot.namespace_labels` ({namespace: {label: value}}; none by default).

Like kube-apiserver (MatchLabelKeysInPodAffinity, on by default in v1.33), a term's matchLabelKeys
and mismatchLabelKeys are folded into its labelSelector with the pod's own label values; doing it
again for a pod the API server already rewrote changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace

from k8s.labels import Matcher, match_everything, match_nothing
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.helper.topology import (
    SelectorParseError,
    describe_selector,
    parse_selector,
    selector_key,
)
from scheduler.engine.pod_index import hashable_labels
from scheduler.engine.podinfo import PodInfo

CACHE_KEY = "InterPodAffinity"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    namespaces: frozenset[str]
    namespace_selector: Matcher
    selector: Matcher
    topology_key: str
    weight: int
    path: str  # e.g. spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]
    selector_text: str
    namespaces_text: str
    # What the term selects, as written (namespaces, namespaceSelector, labelSelector): terms with
    # equal keys match exactly the same pods.
    match_key: tuple = ()
    # The selector's matchLabels: a pod without every one of these cannot match.
    label_pairs: tuple[tuple[str, str], ...] = ()

    def matches(self, pod: PodInfo, namespace_labels: Mapping[str, str]) -> bool:
        """AffinityTerm.Matches: the pod's namespace is covered and its labels match the selector."""
        if pod.namespace in self.namespaces or self.namespace_selector(namespace_labels):
            return self.selector(pod.labels)
        return False


@dataclass(frozen=True, slots=True)
class ParsedAffinity:
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def error(self) -> str | None:
        """utilerrors.NewAggregate's text: one message, or several in brackets."""
        if not self.errors:
            return None
        return self.errors[0] if len(self.errors) == 1 else f"[{', '.join(self.errors)}]"


def _with_label_keys(term: dict, labels: Mapping[str, str]) -> dict | None:
    selector = term.get("labelSelector")
    match_keys = term.get("matchLabelKeys") or []
    mismatch_keys = term.get("mismatchLabelKeys") or []
    if selector is None or not (match_keys or mismatch_keys):
        return selector
    expressions = list(selector.get("matchExpressions") or [])
    for keys, operator in ((match_keys, "In"), (mismatch_keys, "NotIn")):
        for key in keys:
            if key in labels:
                expressions.append({"key": key, "operator": operator, "values": [labels[key]]})
    return {**selector, "matchExpressions": expressions}


def _term(pod: PodInfo, term: dict, weight: int, path: str) -> AffinityTerm:
    selector_raw = _with_label_keys(term, pod.labels)
    selector, _ = parse_selector(selector_raw)
    listed = term.get("namespaces") or []
    ns_raw = term.get("namespaceSelector")
    namespace_selector, _ = parse_selector(ns_raw)
    if not listed and ns_raw is None:
        namespaces = frozenset((pod.namespace,))
        text = pod.namespace
    else:
        namespaces = frozenset(listed)
        text = ", ".join(sorted(namespaces))
        if ns_raw is not None:
            text = f"{text}{' + ' if text else ''}namespaceSelector {describe_selector(ns_raw)}"
    return AffinityTerm(
        namespaces=namespaces,
        namespace_selector=namespace_selector,
        selector=selector,
        topology_key=term.get("topologyKey") or "",
        weight=weight,
        path=path,
        selector_text=describe_selector(selector_raw),
        namespaces_text=text,
        match_key=(namespaces, _canonical(ns_raw), _canonical(selector_raw)),
        label_pairs=tuple(sorted(((selector_raw or {}).get("matchLabels") or {}).items())),
    )


def _canonical(selector: dict | None) -> object:
    try:
        return selector_key(selector)
    except TypeError:
        return json.dumps(selector, sort_keys=True, default=str)


# Most pods have no pod (anti-)affinity: they all share this one, and their PodInfo.extra stays
# empty (kept decisions hold their pods, and the collector scans every container they hold).
NO_TERMS = ParsedAffinity()


def _parse_list(pod: PodInfo, raw: list, kind: str, section: str, weighted: bool, errors: list[str]) -> tuple:
    """framework.GetAffinityTerms: the first term that fails to parse drops the whole list."""
    label = {"podAffinity": "Affinity", "podAntiAffinity": "AntiAffinity"}[kind]
    category = f"{'preferred' if weighted else 'required'}{label}Terms"
    terms = []
    for index, item in enumerate(raw or []):
        path = f"spec.affinity.{kind}.{section}[{index}]"
        term = (item or {}).get("podAffinityTerm") or {} if weighted else item or {}
        weight = int((item or {}).get("weight") or 0) if weighted else 0
        try:
            terms.append(_term(pod, term, weight, path + (".podAffinityTerm" if weighted else "")))
        except SelectorParseError as err:
            errors.append(f"{category}: {err}")
            return ()
    return tuple(terms)


def parse_affinity(pod: PodInfo) -> ParsedAffinity:
    """Parse the pod's four term lists, as framework.PodInfo.Update does."""
    errors: list[str] = []
    affinity = pod.pod_affinity
    anti = pod.pod_anti_affinity
    return ParsedAffinity(
        _parse_list(pod, affinity.get(REQUIRED), "podAffinity", REQUIRED, False, errors),
        _parse_list(pod, anti.get(REQUIRED), "podAntiAffinity", REQUIRED, False, errors),
        _parse_list(pod, affinity.get(PREFERRED), "podAffinity", PREFERRED, True, errors),
        _parse_list(pod, anti.get(PREFERRED), "podAntiAffinity", PREFERRED, True, errors),
        tuple(errors),
    )


def affinity_of(pod: PodInfo) -> ParsedAffinity:
    """The pod's parsed terms, computed once per pod and kept in PodInfo.extra."""
    if not pod.has_any_pod_affinity:
        return NO_TERMS
    parsed = pod.extra.get(CACHE_KEY)
    if parsed is None:
        parsed = pod.extra[CACHE_KEY] = parse_affinity(pod)
    return parsed


def merge_namespaces(term: AffinityTerm, namespace_labels: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """mergeAffinityTermNamespacesIfNotEmpty, for the incoming pod's own terms.

    A non-empty namespaceSelector becomes the list of known namespaces it matches; `{}` stays as
    "every namespace".
    """
    if term.namespace_selector is match_everything:
        return term
    matched = {name for name, labels in namespace_labels.items() if term.namespace_selector(labels)}
    if not matched and term.namespace_selector is match_nothing:
        return term  # nothing to merge
    namespaces = term.namespaces | matched
    match_key = (namespaces, None, term.match_key[2])
    return replace(term, namespaces=namespaces, namespace_selector=match_nothing, match_key=match_key)


# -- existing pods' terms, indexed ---------------------------------------------------------------
# The term lists of an existing pod, in the order upstream's processExistingPod visits them.
EXISTING_LISTS = (
    "required_affinity",
    "required_anti_affinity",
    "preferred_affinity",
    "preferred_anti_affinity",
)


@dataclass(frozen=True, slots=True)
class TermEntry:
    """One term of one bound pod."""

    pod: PodInfo
    node: NodeInfo
    rank: int  # the term's place in its list
    term: AffinityTerm


class ExistingTermsIndex:
    """Bound pods' (anti-)affinity terms grouped by list and match_key, for Snapshot.index().

    A cycle asks each group once whether its terms match the incoming pod, and only the groups
    that can: a group whose selector requires app=web is filed under that label and looked at only
    for an incoming pod labelled app=web.
    """

    def __init__(self) -> None:
        # list name -> match_key -> (pod, n) -> entry
        self.groups: dict[str, dict[tuple, dict[tuple[PodInfo, int], TermEntry]]] = {
            kind: {} for kind in EXISTING_LISTS
        }
        # list name -> one label (key, value) every pod it matches carries, or None -> match_keys
        self._filed: dict[str, dict[tuple[str, str] | None, set[tuple]]] = {
            kind: {} for kind in EXISTING_LISTS
        }
        self._keys_of: dict[PodInfo, list[tuple[str, AffinityTerm, tuple[PodInfo, int]]]] = {}

    def add(self, pod: PodInfo, node: NodeInfo) -> None:
        if not pod.has_any_pod_affinity:
            return
        parsed = affinity_of(pod)
        keys = []
        for kind in EXISTING_LISTS:
            for rank, term in enumerate(getattr(parsed, kind)):
                entry_key = (pod, len(keys))
                group = self.groups[kind].get(term.match_key)
                if group is None:
                    group = self.groups[kind][term.match_key] = {}
                    self._filed[kind].setdefault(_label_of(term), set()).add(term.match_key)
                group[entry_key] = TermEntry(pod, node, rank, term)
                keys.append((kind, term, entry_key))
        if keys:
            self._keys_of[pod] = keys

    def remove(self, pod: PodInfo) -> None:
        for kind, term, entry_key in self._keys_of.pop(pod, ()):
            group = self.groups[kind][term.match_key]
            del group[entry_key]
            if not group:
                del self.groups[kind][term.match_key]
                filed = self._filed[kind][_label_of(term)]
                filed.discard(term.match_key)
                if not filed:
                    del self._filed[kind][_label_of(term)]

    def matching(self, kind: str, pod: PodInfo, namespace_labels: Mapping[str, str]) -> list[TermEntry]:
        """The `kind` terms of bound pods that match `pod`, in no particular order."""
        filed, groups = self._filed[kind], self.groups[kind]
        candidates = [*filed.get(None, ())]
        for label in hashable_labels(pod.labels):
            candidates.extend(filed.get(label, ()))
        found: list[TermEntry] = []
        for match_key in candidates:
            entries = groups[match_key]
            if next(iter(entries.values())).term.matches(pod, namespace_labels):
                found.extend(entries.values())
        return found


def _label_of(term: AffinityTerm) -> tuple[str, str] | None:
    return term.label_pairs[0] if term.label_pairs else None

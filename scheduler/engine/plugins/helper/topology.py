"""Helpers shared by the topology plugins (PodTopologySpread, InterPodAffinity).

Label selectors are parsed here with apimachinery's error texts, because a selector that fails to
parse ends the cycle with that exact message. The other helpers are small: Go's math.Round, the
pod's required node affinity as one matcher.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from k8s.labels import Matcher, all_of, match_everything, match_nothing, requirement
from scheduler.engine.node_selector import NodeSelector
from scheduler.engine.podinfo import PodInfo

_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_DNS_FMT = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_VALUE_RE, _NAME_RE, _DNS_RE = (re.compile(f, re.ASCII) for f in (_VALUE_FMT, _NAME_FMT, _DNS_FMT))
_CHARS = "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_SELECTOR_OPERATORS = {"In", "NotIn", "Exists", "DoesNotExist"}


class SelectorParseError(ValueError):
    """A label selector that metav1.LabelSelectorAsSelector refuses, with apimachinery's message."""


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    """validation.RegexError, including its doubled space before each "or"."""
    listed = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {listed}regex used for validation is '{fmt}')"


def _value_errors(key: str, values: Sequence[str]) -> list[str]:
    errors = []
    for index, value in enumerate(values):
        details = []
        if len(value) > 63:
            details.append("must be no more than 63 characters")
        if not _VALUE_RE.fullmatch(value):
            message = f"a valid label must be an empty string or consist of {_CHARS}"
            details.append(_regex_error(message, _VALUE_FMT, "MyValue", "my_value", "12345"))
        if details:
            errors.append(f"values[{index}][{key}]: Invalid value: {_quote(value)}: {'; '.join(details)}")
    return errors


def _key_error(key: str) -> str | None:
    """validation.IsQualifiedName's messages, joined as validateLabelKey does."""
    parts = key.split("/")
    reasons = []
    if len(parts) > 2:
        name_error = _regex_error(f"must consist of {_CHARS}", _NAME_FMT, "MyName", "my.name", "123-abc")
        reasons.append(
            f"a qualified name {name_error} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        )
    else:
        name = parts[-1]
        if len(parts) == 2:
            prefix = parts[0]
            if not prefix:
                reasons.append("prefix part must be non-empty")
            else:
                if len(prefix) > 253:
                    reasons.append("prefix part must be no more than 253 characters")
                if not _DNS_RE.fullmatch(prefix):
                    message = (
                        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                        "'-' or '.', and must start and end with an alphanumeric character"
                    )
                    reasons.append("prefix part " + _regex_error(message, _DNS_FMT, "example.com"))
        if not name:
            reasons.append("name part must be non-empty")
        elif len(name) > 63:
            reasons.append("name part must be no more than 63 characters")
        if not _NAME_RE.fullmatch(name):
            message = f"must consist of {_CHARS}"
            reasons.append("name part " + _regex_error(message, _NAME_FMT, "MyName", "my.name", "123-abc"))
    if not reasons:
        return None
    return f"key: Invalid value: {_quote(key)}: {'; '.join(reasons)}"


def _requirement_error(key: str, operator: str, values: Sequence[str]) -> str | None:
    """labels.NewRequirement's aggregated field errors, or None when the requirement is valid."""
    errors = []
    if key_error := _key_error(key):
        errors.append(key_error)
    if operator in ("In", "NotIn") and not values:
        errors.append(
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
        )
    if operator in ("Exists", "DoesNotExist") and values:
        listed = ", ".join(_quote(v) for v in values)
        message = "values set must be empty for exists and does not exist"
        errors.append(f"values: Invalid value: []string{{{listed}}}: {message}")
    errors.extend(_value_errors(key, values))
    if not errors:
        return None
    return errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"


def selector_key(selector: dict | None) -> tuple | None:
    """A hashable rendering of a LabelSelector as written (None for nil); raises TypeError for a
    value that cannot be hashed."""
    if selector is None:
        return None
    labels = tuple((selector.get("matchLabels") or {}).items())
    expressions = tuple(
        (expr.get("key", ""), expr.get("operator"), tuple(expr.get("values") or ()))
        for expr in selector.get("matchExpressions") or []
    )
    hash((labels, expressions))
    return labels, expressions


def parse_selector(selector: dict | None) -> tuple[Matcher, int]:
    """metav1.LabelSelectorAsSelector: (matcher, number of requirements). nil matches nothing.

    Raises SelectorParseError with apimachinery's message for a selector it would refuse. Valid
    selectors are remembered by selector_key: pods of one template repeat them.
    """
    if selector is None:
        return match_nothing, 0
    try:
        key = selector_key(selector)
    except TypeError:
        return _parse_selector(selector)
    return _parse_cached(key, selector)


_parsed: dict[tuple, tuple[Matcher, int]] = {}
_PARSED_LIMIT = 4096


def _parse_cached(key: tuple, selector: dict) -> tuple[Matcher, int]:
    parsed = _parsed.get(key)
    if parsed is None:
        parsed = _parse_selector(selector)  # a refused selector raises and is not remembered
        if len(_parsed) >= _PARSED_LIMIT:
            _parsed.clear()
        _parsed[key] = parsed
    return parsed


def _parse_selector(selector: dict) -> tuple[Matcher, int]:
    matchers: list[Matcher] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        if error := _requirement_error(key, "In", [value]):
            raise SelectorParseError(error)
        matchers.append(requirement(key, "In", [value]))
    for expr in selector.get("matchExpressions") or []:
        operator = expr.get("operator")
        if operator not in _SELECTOR_OPERATORS:
            raise SelectorParseError(f"{_quote(str(operator))} is not a valid label selector operator")
        key, values = expr.get("key", ""), list(expr.get("values") or [])
        if error := _requirement_error(key, operator, values):
            raise SelectorParseError(error)
        matchers.append(requirement(key, operator, values))
    if not matchers:
        return match_everything, 0
    return all_of(matchers), len(matchers)


def describe_selector(selector: dict | None) -> str:
    """A short, kubectl-like rendering of a LabelSelector: `app=web,tier in (a,b)`."""
    if selector is None:
        return "<none: matches nothing>"
    parts = [f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        operator, key = expr.get("operator"), expr.get("key", "")
        values = ",".join(expr.get("values") or [])
        if operator == "Exists":
            parts.append(key)
        elif operator == "DoesNotExist":
            parts.append(f"!{key}")
        else:
            parts.append(f"{key} {operator.lower() if operator else '?'} ({values})")
    return ",".join(parts) if parts else "<empty: matches everything>"


def go_round(value: float) -> int:
    """Go's math.Round for the non-negative scores here: halves round away from zero."""
    whole = math.floor(value)
    return int(whole) + (1 if value - whole >= 0.5 else 0)


def required_node_affinity(pod: PodInfo) -> Callable[[Mapping[str, str], str], bool] | None:
    """nodeaffinity.GetRequiredNodeAffinity: nodeSelector AND required terms; None matches every node."""
    node_selector = tuple(pod.node_selector.items())
    raw = (pod.affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None if raw is None else NodeSelector.parse(raw)
    if not node_selector and terms is None:
        return None

    def matches(labels: Mapping[str, str], name: str) -> bool:
        for key, value in node_selector:
            if labels.get(key) != value:
                return False
        return terms is None or terms.matches(labels, name)

    return matches


# -- PodTopologySpread constraints ----------------------------------------------------------------
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SYSTEM_DEFAULT_CONSTRAINTS = (
    {"topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 3},
    {"topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 5},
)


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """podtopologyspread.topologySpreadConstraint: the selector parsed, the defaults filled in."""

    max_skew: int
    topology_key: str
    selector: Matcher
    min_domains: int
    honor_node_affinity: bool  # nodeAffinityPolicy, Honor by default
    honor_node_taints: bool  # nodeTaintsPolicy, Ignore by default
    path: str  # the field a student should look at
    selector_text: str
    label_pairs: tuple[tuple[str, str], ...] = ()  # the selector's matchLabels, for LabelIndex


def spread_constraints(
    raw: Sequence[dict], pod_labels: Mapping[str, str], action: str, path: str, selector: dict | None = None
) -> list[SpreadConstraint]:
    """filterTopologySpreadConstraints: the constraints with `action`, matchLabelKeys merged in.

    `selector` replaces every constraint's labelSelector (the cluster-default constraints use the
    selector of the workloads that own the pod). Raises SelectorParseError.
    """
    result = []
    for index, constraint in enumerate(raw):
        if constraint.get("whenUnsatisfiable") != action:
            continue
        label_selector = selector if selector is not None else constraint.get("labelSelector")
        match_labels = {k: pod_labels[k] for k in constraint.get("matchLabelKeys") or [] if k in pod_labels}
        if match_labels:
            # mergeLabelSetWithSelector: a nil selector contributes no requirements.
            base = label_selector or {}
            label_selector = {
                "matchLabels": {**match_labels},
                "matchExpressions": [
                    *(
                        {"key": k, "operator": "In", "values": [v]}
                        for k, v in (base.get("matchLabels") or {}).items()
                    ),
                    *(base.get("matchExpressions") or []),
                ],
            }
        matcher, _ = parse_selector(label_selector)
        result.append(
            SpreadConstraint(
                max_skew=int(constraint.get("maxSkew") or 0),
                topology_key=constraint.get("topologyKey") or "",
                selector=matcher,
                min_domains=int(constraint.get("minDomains") or 1),
                honor_node_affinity=(constraint.get("nodeAffinityPolicy") or "Honor") == "Honor",
                honor_node_taints=(constraint.get("nodeTaintsPolicy") or "Ignore") == "Honor",
                path=f"{path}[{index}]",
                selector_text=describe_selector(label_selector),
                label_pairs=tuple(sorted(((label_selector or {}).get("matchLabels") or {}).items())),
            )
        )
    return result


def workload_selector(pod: PodInfo, owners: Sequence[dict]) -> dict | None:
    """helper.DefaultSelector over KubeSim's "selector owners"; None when nothing selects the pod.

    Each owner is {"namespace": ..., "selector": ..., "kind": ...}: a Service's plain label map, or a
    ReplicaSet/StatefulSet/ReplicationController LabelSelector (matchLabels/matchExpressions). An
    owner without a namespace applies in every namespace. The selectors of all owners that select
    the pod are ANDed; if they add up to no requirement at all, no default constraint applies.
    """
    labels: dict[str, str] = {}
    expressions: list[dict] = []
    for owner in owners:
        if owner.get("namespace") not in (None, pod.namespace):
            continue
        raw = owner.get("selector")
        if raw is None:
            continue  # a nil selector selects nothing
        selector = raw if set(raw) <= {"matchLabels", "matchExpressions"} else {"matchLabels": raw}
        try:
            matcher, _ = parse_selector(selector)
        except SelectorParseError:
            continue
        if not matcher(pod.labels):
            continue
        labels.update(selector.get("matchLabels") or {})
        expressions.extend(selector.get("matchExpressions") or [])
    if not labels and not expressions:
        return None
    return {"matchLabels": labels, "matchExpressions": expressions}

"""v1.NodeSelector matching (component-helpers nodeaffinity): ORed terms of ANDed requirements.

An empty term matches nothing, and a term that fails to parse is dropped, not evaluated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from k8s.labels import Matcher, SelectorError, all_of, requirement

_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


@dataclass(frozen=True, slots=True)
class ParsedTerm:
    labels: Matcher | None
    fields: tuple[tuple[str, str, str], ...]  # (key, operator, value) on the node's fields

    def matches(self, node_labels: Mapping[str, str], node_name: str) -> bool:
        if self.labels is not None and not self.labels(node_labels):
            return False
        node_fields = {"metadata.name": node_name}
        for key, operator, value in self.fields:
            equal = node_fields.get(key, "") == value
            if equal != (operator == "In"):
                return False
        return True


def parse_term(term: dict) -> ParsedTerm:
    """Raise SelectorError for a term upstream would drop."""
    label_matchers: list[Matcher] = []
    for expr in term.get("matchExpressions") or []:
        operator = expr.get("operator")
        if operator not in _LABEL_OPERATORS:
            raise SelectorError(f"operator {operator!r} is not supported")
        label_matchers.append(requirement(expr.get("key", ""), operator, expr.get("values")))
    fields: list[tuple[str, str, str]] = []
    for expr in term.get("matchFields") or []:
        operator = expr.get("operator")
        values = expr.get("values") or []
        if operator not in ("In", "NotIn"):
            raise SelectorError(f"field selector operator {operator!r} is not supported")
        if len(values) != 1:
            raise SelectorError("field selector values must have one element")
        fields.append((expr.get("key", ""), operator, values[0]))
    return ParsedTerm(all_of(label_matchers) if label_matchers else None, tuple(fields))


def is_empty_term(term: dict | None) -> bool:
    return not term or (not term.get("matchExpressions") and not term.get("matchFields"))


@dataclass(frozen=True, slots=True)
class NodeSelector:
    terms: tuple[ParsedTerm, ...]
    dropped: tuple[tuple[int, str], ...]  # (term index, parse error) of terms that match nothing

    @classmethod
    def parse(cls, selector: dict | None) -> NodeSelector:
        terms: list[ParsedTerm] = []
        dropped: list[tuple[int, str]] = []
        for index, term in enumerate((selector or {}).get("nodeSelectorTerms") or []):
            if is_empty_term(term):
                dropped.append((index, "empty term matches no node"))
                continue
            try:
                terms.append(parse_term(term))
            except SelectorError as err:
                dropped.append((index, str(err)))
        return cls(tuple(terms), tuple(dropped))

    def matches(self, node_labels: Mapping[str, str], node_name: str) -> bool:
        return any(term.matches(node_labels, node_name) for term in self.terms)

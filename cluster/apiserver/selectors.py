"""labelSelector and fieldSelector strings, parsed as k8s.io/apimachinery's labels and fields packages.

A parsed selector narrows a queryset where it can (Label rows, indexed columns) and also matches
single objects in Python, for watch events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from cluster.apiserver.errors import bad_request
from cluster.models import Label
from k8s.labels import Matcher, SelectorError, requirement

_TOKEN = re.compile(r"\s*(!=|==|=|!|,|\(|\)|>|<|[^\s!=,()<>]+)")
_OPERATORS = {"=": "In", "==": "In", "!=": "NotIn", "in": "In", "notin": "NotIn", ">": "Gt", "<": "Lt"}


@dataclass(frozen=True, slots=True)
class LabelRequirement:
    key: str
    operator: str  # In / NotIn / Exists / DoesNotExist / Gt / Lt
    values: tuple[str, ...]
    matches: Matcher


def _tokens(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if not match:
            raise bad_request(f"unable to parse requirement: unexpected character at {pos}")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


def _values(tokens: list[str], i: int, text: str) -> tuple[list[str], int]:
    """`( v1, v2 )` starting at tokens[i] == "("; returns the values and the index after ")"."""
    if i >= len(tokens) or tokens[i] != "(":
        raise bad_request(f"unable to parse requirement: found '{_at(tokens, i)}', expected: '(' in {text!r}")
    values, i, expect_value = [], i + 1, True
    while i < len(tokens) and tokens[i] != ")":
        token = tokens[i]
        if token == ",":
            if expect_value:
                values.append("")
            expect_value = True
        elif expect_value:
            values.append(token)
            expect_value = False
        else:
            raise bad_request(f"unable to parse requirement: found '{token}', expected: ',' or ')'")
        i += 1
    if i >= len(tokens):
        raise bad_request(f"unable to parse requirement: found '', expected: ')' in {text!r}")
    return values, i + 1


def _at(tokens: list[str], i: int) -> str:
    return tokens[i] if i < len(tokens) else ""


def parse_label_selector(text: str) -> list[LabelRequirement]:
    """`a=b,c!=d,e in (x,y),f notin (z),g,!h` -> requirements; 400 BadRequest when malformed."""
    tokens, i, result = _tokens(text or ""), 0, []
    while i < len(tokens):
        negate = tokens[i] == "!"
        i += negate
        key = _at(tokens, i)
        if not key or key in "!=,()<>" or key in ("==", "!="):
            raise bad_request(f"unable to parse requirement: found '{key}', expected: identifier")
        i += 1
        following = _at(tokens, i)
        if negate or following in ("", ","):
            operator, values = ("DoesNotExist" if negate else "Exists"), []
        elif following in ("in", "notin"):
            operator = _OPERATORS[following]
            values, i = _values(tokens, i + 1, text)
        elif following in _OPERATORS:
            operator = _OPERATORS[following]
            value = _at(tokens, i + 1)
            if value in ("", ","):
                values, i = [""], i + 1
            else:
                values, i = [value], i + 2
        else:
            raise bad_request(
                f"unable to parse requirement: found '{following}', expected: in, notin, =, ==, !=, gt, lt"
            )
        if _at(tokens, i) not in ("", ","):
            raise bad_request(f"found '{_at(tokens, i)}', expected: ',' or 'end of string'")
        i += 1
        try:
            matcher = requirement(key, operator, values)
        except SelectorError as err:
            raise bad_request(f"unable to parse requirement: {err}") from None
        result.append(LabelRequirement(key, operator, tuple(values), matcher))
    return result


def filter_labels(queryset: QuerySet, requirements: list[LabelRequirement]) -> tuple[QuerySet, list]:
    """Narrow `queryset` through Label rows; returns it with the requirements left for Python."""
    rest = []
    for req in requirements:
        rows = Label.objects.filter(obj=OuterRef("pk"), key=req.key)
        if req.operator == "In":
            queryset = queryset.filter(Exists(rows.filter(value__in=req.values)))
        elif req.operator == "NotIn":
            queryset = queryset.exclude(Exists(rows.filter(value__in=req.values)))
        elif req.operator == "Exists":
            queryset = queryset.filter(Exists(rows))
        elif req.operator == "DoesNotExist":
            queryset = queryset.exclude(Exists(rows))
        else:
            rest.append(req)
    return queryset, rest


def labels_match(requirements: list[LabelRequirement], obj: dict) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(req.matches(labels) for req in requirements)

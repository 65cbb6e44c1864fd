"""The small languages inside checks: field paths and label selectors.

A field path is JSONPath-like, as `kubectl get -o jsonpath` users write it without the braces:
`spec.nodeName`, `status.containerStatuses[0].ready`, `metadata.labels.app`, and for keys with
dots or slashes `metadata.labels["kubernetes.io/hostname"]`.
"""

from __future__ import annotations

import re

from k8s.labels import label_key_error, label_value_error

_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
_INDEX = re.compile(r"\[(\d+)\]")
_QUOTED = re.compile(r"""\[(["'])(.*?)\1\]""")

MISSING = object()


class PathError(ValueError):
    pass


def parse_path(text: str) -> tuple[str | int, ...]:
    """'status.containerStatuses[0].ready' -> ('status', 'containerStatuses', 0, 'ready')."""
    parts: list[str | int] = []
    pos = 0
    while pos < len(text):
        if text[pos] == "." and parts:
            pos += 1
        name = _NAME.match(text, pos)
        index = _INDEX.match(text, pos)
        quoted = _QUOTED.match(text, pos)
        if name and (pos == 0 or text[pos - 1] == "."):
            parts.append(name.group(0))
            pos = name.end()
        elif index:
            parts.append(int(index.group(1)))
            pos = index.end()
        elif quoted:
            parts.append(quoted.group(2))
            pos = quoted.end()
        else:
            raise PathError(f"cannot read the path {text!r} at character {pos + 1}")
    if not parts or not isinstance(parts[0], str):
        raise PathError(f"the path {text!r} must start with a field name, e.g. spec.nodeName")
    return tuple(parts)


def resolve(obj: object, path: tuple[str | int, ...]) -> object:
    """The value at `path`, or MISSING when any part of it is absent."""
    for part in path:
        if isinstance(part, int):
            if not isinstance(obj, list) or part >= len(obj):
                return MISSING
            obj = obj[part]
        else:
            if not isinstance(obj, dict) or part not in obj:
                return MISSING
            obj = obj[part]
    return obj


_SET_OP = re.compile(r"^(\S+)\s+(in|notin)\s+\((.*)\)$")
_EQ_OP = re.compile(r"^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$")


def split_selector(text: str) -> list[str]:
    """Split on the commas that are not inside `in (a,b)` parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def selector_error(text: str) -> str | None:
    """Why `text` is not a valid label selector (as kubectl -l takes it), or None."""
    if not text.strip():
        return "the selector is empty"
    for part in split_selector(text):
        key, values = _selector_part(part)
        if key is None:
            return f"cannot read {part!r}: write key=value, key!=value, key in (a,b), key or !key"
        problem = label_key_error(key) or next(filter(None, map(label_value_error, values)), None)
        if problem:
            return f"{part!r}: {problem}"
    return None


def _selector_part(part: str) -> tuple[str | None, list[str]]:
    if match := _SET_OP.match(part):
        return match.group(1), [v.strip() for v in match.group(3).split(",")]
    if match := _EQ_OP.match(part):
        return match.group(1), [match.group(3)]
    bare = part[1:] if part.startswith("!") else part
    if bare and not re.search(r"[\s=!(),]", bare):
        return bare, []
    return None, []


def label_error(text: str) -> str | None:
    """Why `key` or `key=value` is not a valid node label, or None."""
    key, _, value = text.partition("=")
    return label_key_error(key) or label_value_error(value)

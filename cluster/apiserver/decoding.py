"""Request bodies turned into documents, or a 400 Status: strict UTF-8 and a nesting limit.

Every verb's body goes through here (POST, PUT, each PATCH type, DELETE options, /apply), so a
byte sequence that is not UTF-8 is refused rather than stored as U+FFFD, and a document nested
deeper than MAX_DEPTH is refused before a recursive parser walks it.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from cluster.apiserver.errors import ApiError, bad_request
from k8s.numbers import OutOfRange, float_from_text, int_from_text
from k8s.yamldocs import utf8_safe

MAX_DEPTH = 100
NOT_UTF8 = "the request body is not valid UTF-8"
# A JSON string (skipped whole, so brackets inside it do not count) or one bracket.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def too_deep() -> ApiError:
    return bad_request(f"the request body is nested more than {MAX_DEPTH} levels deep")


def text_of(body: bytes | str) -> str:
    """The body as text; 400 when its bytes are not UTF-8 (nothing is replaced)."""
    if isinstance(body, str):
        return body
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request(NOT_UTF8) from None


def check_json_depth(text: str) -> None:
    """400 when the JSON text opens more than MAX_DEPTH arrays/objects inside each other."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # cannot be too deep: the common case costs two counts
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise too_deep()
        elif token in "]}":
            depth -= 1


def check_depth(value: object) -> None:
    """400 when a parsed document nests deeper than MAX_DEPTH (iterative: no recursion limit)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= MAX_DEPTH:
            raise too_deep()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def _not_json(what: str):
    """NaN and Infinity are Python's extensions, not JSON: refused as Go's decoder refuses them."""

    def refuse(constant: str) -> object:
        raise bad_request(
            f"error decoding {what}: invalid character '{constant[0]}' looking for beginning of value"
        )

    return refuse


# A \uD800–\uDFFF escape: half of a UTF-16 pair, which Python keeps alone if its other half is missing.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _without_lone_surrogates(text: str, data: object) -> object:
    """The parsed document with no string that cannot be UTF-8 (stored, put in a header, sent)."""
    if not _SURROGATE_ESCAPE.search(text):
        return data  # the common case: one search
    if isinstance(data, str):
        return utf8_safe(data)
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            for i, child in enumerate(item):
                if isinstance(child, str):
                    item[i] = utf8_safe(child)
                elif isinstance(child, dict | list):
                    stack.append(child)
        elif isinstance(item, dict):
            for key in list(item):
                child = item.pop(key)
                if isinstance(child, str):
                    child = utf8_safe(child)
                elif isinstance(child, dict | list):
                    stack.append(child)
                item[utf8_safe(key)] = child
    return data


class _Repeats(dict):
    """A JSON object some of whose keys were given twice (the later value kept, as Go's decoder)."""

    repeated: tuple[str, ...] = ()


def _noting_repeats(pairs: list[tuple[str, object]], found: list[bool]) -> dict:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    marked = _Repeats(obj)
    marked.repeated = tuple(k for k, _ in pairs if k in seen or seen.add(k))
    found.append(True)
    return marked


def repeated_fields(value: object, path: str = "") -> list[str]:
    """The paths of the keys a JSON document (parsed by load_json with `duplicates`) gave twice."""
    found: list[str] = []
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            found += [f"{where}.{key}" if where else key for key in getattr(item, "repeated", ())]
            stack.extend((child, f"{where}.{key}" if where else key) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in reversed(list(enumerate(item))))
    return found


def load_json(body: bytes | str, what: str = "JSON", duplicates: list[str] | None = None) -> object:
    """Strict UTF-8, the depth limit, then json.loads; every failure is a 400 Status.

    With `duplicates` (a list), the paths of keys given twice are appended to it (the later value
    wins); a strict decoder reports them."""
    text = text_of(body)
    check_json_depth(text)
    try:
        numbers = {
            "parse_int": int_from_text,
            "parse_float": float_from_text,
            "parse_constant": _not_json(what),
        }
        if duplicates is None:
            return _without_lone_surrogates(text, json.loads(text, **numbers))
        found: list[bool] = []
        data = json.loads(text, object_pairs_hook=lambda pairs: _noting_repeats(pairs, found), **numbers)
        if found:  # the paths are worked out only for a body that repeats a key
            duplicates.extend(repeated_fields(data))
        return _without_lone_surrogates(text, data)
    except json.JSONDecodeError as err:
        where = f"at line {err.lineno}, column {err.colno}"
        raise bad_request(f"error decoding {what}: {err.msg} {where}") from None
    except OutOfRange as err:
        raise bad_request(f"error decoding {what}: {err}") from None
    except RecursionError:
        raise too_deep() from None


def decoded(value: object) -> bytes | None:
    """A Secret data value (base64 text) as bytes; None when it is not valid base64."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def bad_base64(obj: dict) -> str | None:
    """Go's decoder error for a Secret whose data is not base64 (before any validation)."""
    for value in (obj.get("data") or {}).values() if isinstance(obj.get("data"), dict) else ():
        if isinstance(value, str) and decoded(value) is None:
            index = _first_bad_byte(value)
            return f"illegal base64 data at input byte {index}"
    return None


def _first_bad_byte(value: str) -> int:
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for i, char in enumerate(value):
        if char not in alphabet:
            return i
    return len(value) - len(value) % 4

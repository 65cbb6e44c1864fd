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


def load_json(body: bytes | str, what: str = "JSON") -> object:
    """Strict UTF-8, the depth limit, then json.loads; every failure is a 400 Status."""
    text = text_of(body)
    check_json_depth(text)
    try:
        return json.loads(
            text, parse_int=int_from_text, parse_float=float_from_text, parse_constant=_not_json(what)
        )
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

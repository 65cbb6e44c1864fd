"""JSON Patch (RFC 6902) for `kubectl patch --type=json`: add, remove, replace, move, copy, test."""

from __future__ import annotations

import copy

from cluster.apiserver.errors import ApiError


def _error(message: str) -> ApiError:
    return ApiError(422, "Invalid", message)


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise _error(f'JSON pointer "{pointer}" must start with "/"')
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container: list, token: str, pointer: str, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token.startswith("0")):
        raise _error(f'doc is missing path: "{pointer}": invalid array index "{token}"')
    index = int(token)
    if index > len(container) or (index == len(container) and not allow_end):
        raise _error(f'doc is missing path: "{pointer}": index {index} out of bounds')
    return index


def _parent(doc: object, pointer: str) -> tuple[object, str]:
    tokens = _tokens(pointer)
    if not tokens:
        raise _error("the whole document cannot be the target of this operation")
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, pointer, allow_end=False)]
        else:
            raise _error(f'doc is missing path: "{pointer}"')
    return node, tokens[-1]


def _get(doc: object, pointer: str) -> object:
    node = doc
    for token in _tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, pointer, allow_end=False)]
        else:
            raise _error(f'doc is missing path: "{pointer}"')
    return node


def _add(doc: object, pointer: str, value: object) -> object:
    if pointer == "":
        return value
    parent, token = _parent(doc, pointer)
    if isinstance(parent, dict):
        parent[token] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, token, pointer, allow_end=True), value)
    else:
        raise _error(f'doc is missing path: "{pointer}"')
    return doc


def _remove(doc: object, pointer: str) -> object:
    parent, token = _parent(doc, pointer)
    if isinstance(parent, dict) and token in parent:
        del parent[token]
    elif isinstance(parent, list):
        del parent[_index(parent, token, pointer, allow_end=False)]
    else:
        raise _error(f'jsonpatch remove operation does not apply: doc is missing path: "{pointer}"')
    return doc


def _operation(doc: object, op: dict) -> object:
    name, path = op.get("op"), op.get("path")
    if not isinstance(path, str):
        raise _error(f"operation {op!r} has no path")
    if name in ("add", "replace", "test") and "value" not in op:
        raise _error(f'"{name}" operation {op!r} has no value')
    if name == "add":
        return _add(doc, path, copy.deepcopy(op["value"]))
    if name == "remove":
        return _remove(doc, path)
    if name == "replace":
        _get(doc, path)
        return _add(_remove(doc, path), path, copy.deepcopy(op["value"])) if path else op["value"]
    if name in ("move", "copy"):
        source = op.get("from")
        if not isinstance(source, str):
            raise _error(f'"{name}" operation {op!r} has no from')
        value = copy.deepcopy(_get(doc, source))
        if name == "move":
            doc = _remove(doc, source)
        return _add(doc, path, value)
    if name == "test":
        if _get(doc, path) != op["value"]:
            raise _error(f"testing value {path} failed: test failed")
        return doc
    raise _error(f"Unexpected kind: {name}")


def apply(original: dict, ops: list[dict]) -> dict:
    """The document after every operation, or ApiError 422 naming the operation that failed."""
    if not isinstance(ops, list):
        raise _error("a JSON patch must be a list of operations")
    doc: object = copy.deepcopy(original)
    for op in ops:
        if not isinstance(op, dict):
            raise _error(f"a JSON patch operation must be an object, got {op!r}")
        doc = _operation(doc, op)
    if not isinstance(doc, dict):
        raise _error("the patch did not produce an object")
    return doc

"""Strategic merge patch, as the API server applies it (k8s.io/apimachinery strategicpatch).

Maps merge key by key and `null` deletes. A list merges element by element on its merge key
(containers by name, ports by containerPort, env by name, volumeMounts by mountPath, ...) when the
Go type says `patchStrategy:"merge"` (upstream's x-kubernetes-patch-strategy and -merge-key in
`cluster.openapi.definitions`); every other list (tolerations, taints, args, ...) is replaced
whole, which is what kubectl expects when it sends them. Directives: `$patch: replace|delete`
(on a map or a list element), `$retainKeys`, `$setElementOrder/<field>` and
`$deleteFromPrimitiveList/<field>`.
"""

from __future__ import annotations

import copy

from cluster.apiserver.errors import ApiError
from cluster.openapi import definitions

_PATCH, _RETAIN = "$patch", "$retainKeys"
_ORDER, _DELETE_PRIMITIVE = "$setElementOrder/", "$deleteFromPrimitiveList/"


def invalid_patch(message: str) -> ApiError:
    return ApiError(422, "Invalid", message)


def apply(original: dict, patch: dict, kind: str) -> dict:
    """The object after applying a strategic merge patch; `kind` is the Kind ("Pod", "Node", ...)."""
    if not isinstance(patch, dict):
        raise invalid_patch("a strategic merge patch must be a JSON object")
    return _merge_map(copy.deepcopy(original), copy.deepcopy(patch), definitions.of_kind(kind) or "")


def _field_type(type_name: str, field: str) -> str:
    """The definition of a field's value, list element or map value; "" when it has no fields."""
    spec = (definitions.fields(type_name) or {}).get(field, "").strip("[]{}")
    return spec if definitions.fields(spec) else ""


def _merge_map(original: dict, patch: dict, type_name: str) -> dict:
    directive = patch.pop(_PATCH, None)
    if directive == "replace":
        return _merge_map({}, patch, type_name)
    if directive == "delete":
        return {}
    if directive is not None:
        raise invalid_patch(f"Unknown patch type: {directive!r} in map")
    if _RETAIN in patch:
        retain = patch.pop(_RETAIN)
        if not isinstance(retain, list):  # upstream's mergepatch.ErrBadPatchFormatForRetainKeys
            raise invalid_patch("invalid patch format of retainKeys")
        original = {k: v for k, v in original.items() if k in retain}
    orders = {}
    for key in [k for k in patch if k.startswith((_ORDER, _DELETE_PRIMITIVE))]:
        value = patch.pop(key)
        if key.startswith(_ORDER):
            if not isinstance(value, list):  # ErrBadPatchFormatForSetElementOrderList
                raise invalid_patch("invalid patch format of setElementOrder list")
            orders[key.removeprefix(_ORDER)] = value
        else:
            if not isinstance(value, list):  # ErrBadPatchFormatForPrimitiveList
                raise invalid_patch("invalid patch format of primitive list")
            field = key.removeprefix(_DELETE_PRIMITIVE)
            original[field] = [x for x in original.get(field) or [] if x not in value]
    for key, value in patch.items():
        if value is None:
            original.pop(key, None)
            continue
        original[key] = _merge_value(original.get(key), value, type_name, key)
    for field, order in orders.items():
        if isinstance(original.get(field), list):
            key = definitions.merge_keys(type_name).get(field, "")
            original[field] = _reorder(original[field], order, key)
    return original


def _merge_value(current: object, value: object, type_name: str, field: str) -> object:
    child = _field_type(type_name, field)
    if isinstance(value, dict):
        base = current if isinstance(current, dict) else {}
        return _merge_map(base, value, child)
    if isinstance(value, list):
        base = current if isinstance(current, list) else []
        keys = definitions.merge_keys(type_name)
        if field in keys:
            return _merge_list(base, value, keys[field], child)
        return _replace_list(value, child)
    return value


def _replace_list(patch: list, child: str) -> list:
    """A list without a merge strategy is replaced; directives inside its maps are still honoured."""
    if any(isinstance(item, dict) and item.get(_PATCH) == "replace" for item in patch):
        patch = [item for item in patch if not (isinstance(item, dict) and item.get(_PATCH) == "replace")]
    return [_merge_map({}, item, child) if isinstance(item, dict) else item for item in patch]


def _merge_list(original: list, patch: list, key: str, child: str) -> list:
    if any(isinstance(item, dict) and item.get(_PATCH) == "replace" for item in patch):
        return _replace_list(patch, child)
    if not key:
        merged = list(original)
        merged.extend(item for item in patch if item not in merged)
        return merged
    result = list(original)
    for item in patch:
        if not isinstance(item, dict):
            raise invalid_patch(f"expected a map with merge key {key!r} in a merge list, got {item!r}")
        if item.get(_PATCH) == "delete":
            result = [o for o in result if not (isinstance(o, dict) and o.get(key) == item.get(key))]
            continue
        if key not in item:
            raise invalid_patch(f"map: {item} does not contain declared merge key: {key}")
        index = next(
            (i for i, o in enumerate(result) if isinstance(o, dict) and o.get(key) == item[key]), None
        )
        if index is None:
            result.append(_merge_map({}, item, child))
        else:
            result[index] = _merge_map(result[index], item, child)
    return result


def _reorder(items: list, order: list, key: str) -> list:
    """$setElementOrder: listed elements first, in the patch's order; the rest keep theirs."""

    def ident(item: object) -> object:
        return item.get(key) if key and isinstance(item, dict) else item

    wanted = [o.get(key) if key and isinstance(o, dict) else o for o in order]
    position = {w: i for i, w in enumerate(wanted)}
    listed = sorted((i for i in items if ident(i) in position), key=lambda i: position[ident(i)])
    return listed + [i for i in items if ident(i) not in position]

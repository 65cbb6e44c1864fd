"""PATCH bodies: JSON merge patch here (RFC 7386); strategic merge and JSON patch from cluster.kubeapi."""

from __future__ import annotations

import copy

from cluster.apiserver.decoding import check_depth, load_json, text_of
from cluster.apiserver.errors import ApiError, bad_request, unsupported_media_type
from cluster.kubeapi import json_patch, strategic_merge
from k8s.yamldocs import NotOneDocument, YamlError, load_one

MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE, STRATEGIC, APPLY)


def merge_patch(target: object, patch: object) -> object:
    """RFC 7386: objects merge key by key, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def load_apply_body(text: str) -> object:
    """An apply-patch (or YAML request) body: one YAML or JSON document; 400 otherwise."""
    try:
        return load_one(text)
    except NotOneDocument as err:
        raise bad_request(str(err)) from None
    except YamlError as err:
        raise bad_request(f"error decoding YAML: {err}") from None


def decode(body: bytes | str | dict | list, content_type: str) -> object:
    """The patch document; 400 for bytes that are not UTF-8, nesting past MAX_DEPTH, bad syntax."""
    if isinstance(body, dict | list):
        check_depth(body)
        return body
    text = text_of(body)
    if content_type == APPLY:
        return load_apply_body(text)
    return load_json(text, "patch")


def check_shape(patch: object, content_type: str) -> None:
    """400 unless the decoded patch is what its media type needs: an object, or JSON patch's list.
    The handler checks it at once: a JSON null, number or string must not be taken for a body not
    yet decoded further in."""
    content_type = content_type.split(";")[0].strip()
    if content_type in (MERGE, STRATEGIC, APPLY) and not isinstance(patch, dict):
        raise bad_request("error decoding patch: a merge patch must be a JSON object")
    if content_type == JSON_PATCH and not isinstance(patch, list):
        raise bad_request("error decoding patch: a JSON patch must be a list of operations")


def apply_patch(original: dict, patch: object, content_type: str, kind: str) -> dict:
    """The patched object, by the patch's media type (parameters such as charset ignored)."""
    content_type = content_type.split(";")[0].strip()
    check_shape(patch, content_type)
    if content_type == MERGE:
        return merge_patch(original, patch)  # type: ignore[return-value]
    if content_type in (STRATEGIC, APPLY):
        # Server-side apply merges associative lists (containers by name, ...) by key, as SMP does.
        result = strategic_merge.apply(original, patch, kind)
    elif content_type == JSON_PATCH:
        result = json_patch.apply(original, patch)
    else:
        raise unsupported_media_type(content_type)
    if not isinstance(result, dict):
        raise ApiError(422, "Invalid", "the patch did not produce an object")
    return result

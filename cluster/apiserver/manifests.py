"""POST /apply: multi-document YAML created or configured in one transaction, all or nothing.

Like `kubectl apply`: a new object is created, an existing one is updated through a three-way merge
with its last-applied-configuration annotation ("configured"), or left alone ("unchanged"). Every
error names its document, line and field path.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

from django.db import transaction

from cluster.apiserver import defaults, fieldvalidation, store, typecheck
from cluster.apiserver.actor import Actor
from cluster.apiserver.admission import serviceaccount
from cluster.apiserver.errors import ApiError, DecodeError, bad_request
from cluster.apiserver.patch import merge_patch
from cluster.apiserver.reads import check_kind
from cluster.apiserver.writes import create, store_update
from cluster.models import Cluster
from k8s.yamldocs import Document, YamlError, load_documents

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
Allow = Callable[[str, str, str, str], None]


def _objects(documents: list[Document]) -> list[tuple[Document, tuple, object]]:
    """Each object with its document and path prefix; a v1 List contributes its items."""
    found = []
    for doc in documents:
        data = doc.data
        if isinstance(data, dict) and str(data.get("kind", "")).endswith("List") and "items" in data:
            for i, item in enumerate(data.get("items") or []):
                found.append((doc, ("items", i), item))
        else:
            found.append((doc, (), data))
    return found


def _three_way(existing: dict, manifest: dict, info_kind: str) -> dict:
    """The object after applying `manifest`: fields it dropped since the last apply are removed."""
    desired = copy.deepcopy(manifest)
    desired.setdefault("metadata", {})
    defaults.kind_defaults(desired)
    desired.pop("status", None)
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation"):
        desired["metadata"].pop(key, None)
    annotations = (existing.get("metadata") or {}).get("annotations") or {}
    try:
        last = json.loads(annotations.get(LAST_APPLIED, "{}"))
    except json.JSONDecodeError:
        last = {}
    patch = merge_patch(_removals(last, manifest), desired)
    merged = merge_patch(existing, patch)
    if info_kind == "Pod":
        serviceaccount.keep_token_volume(existing, merged)  # type: ignore[arg-type]
    return merged  # type: ignore[return-value]


def _removals(last: object, new: object) -> dict:
    """A merge patch that deletes (null) the keys `last` had and `new` no longer has."""
    if not isinstance(last, dict) or not isinstance(new, dict):
        return {}
    patch: dict = {}
    for key, value in last.items():
        if key not in new:
            patch[key] = None
        elif isinstance(value, dict):
            nested = _removals(value, new[key])
            if nested:
                patch[key] = nested
    return patch


def _judge_fields(info, obj: object, doc: Document, prefix: tuple, mode: str) -> list[str]:
    """fieldValidation of one object: its repeated keys and unknown fields, located in the YAML."""
    repeated = fieldvalidation.yaml_duplicates(doc.duplicates, prefix)

    def locate(field: str) -> int:
        return doc.line_of(prefix + fieldvalidation.path_parts(field))

    return fieldvalidation.judge(info.kind, info.version, obj, repeated, mode, locate)


def _apply_one(
    cluster: Cluster, obj: object, actor: Actor, allow: Allow | None, judge: Callable[..., list[str]]
) -> tuple[str, dict, list[str]]:
    info = check_kind(obj)
    typecheck.check_body(info, obj)
    warnings = judge(info, obj)
    manifest = copy.deepcopy(obj)
    meta = manifest.setdefault("metadata", {})
    if info.namespaced and not meta.get("namespace"):
        meta["namespace"] = "default"
    applied = {k: v for k, v in manifest.items() if k != "status"}
    meta.setdefault("annotations", {})[LAST_APPLIED] = json.dumps(applied, separators=(",", ":")) + "\n"
    row = store.find(
        cluster, info.kind, meta.get("namespace", "") if info.namespaced else "", meta.get("name", "")
    )
    namespace = meta.get("namespace", "") if info.namespaced else ""
    if row is None:
        if allow is not None:
            allow("create", info.kind, namespace, "")
        return "created", create(cluster, manifest, actor, typed=True), warnings
    locked = store.lock(cluster)
    before = locked.revision
    result = store_update(locked, info, row, _three_way(row.body, manifest, info.kind), actor, None, "update")
    cluster.revision = locked.revision
    if locked.revision == before:
        return "unchanged", result, warnings
    if allow is not None:
        # Only a change is a write (kubectl sends no patch for an unchanged object); a refused one
        # is undone with its savepoint.
        allow("patch", info.kind, namespace, meta.get("name", ""))
    return "configured", result, warnings


def _error_entries(err: ApiError, doc: Document, prefix: tuple, obj: object) -> list[dict]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    kind = obj.get("kind", "") if isinstance(obj, dict) else ""
    base = {
        "index": doc.index,
        "document": doc.index + 1,
        "kind": kind if isinstance(kind, str) else "",
        "name": meta["name"] if isinstance(meta.get("name"), str) else "",
        "reason": err.reason,
        "code": err.code,
    }
    if isinstance(err, fieldvalidation.StrictDecodingError):
        # One entry per problem, each at its own line, each worded as kubectl prints it.
        strict = fieldvalidation.StrictDecodingError
        return [
            {
                **base,
                "line": problem.line or doc.line_of(prefix + fieldvalidation.path_parts(problem.field)),
                "field": problem.field,
                "message": strict(base["kind"], _version(obj), [problem]).message,
                "problem": {"text": problem.text, "line": problem.line, "yaml": problem.yaml},
                "namespace": meta.get("namespace") if isinstance(meta.get("namespace"), str) else "",
                "version": _version(obj),
            }
            for problem in err.problems
        ]
    causes = (err.details or {}).get("causes") or []
    if not causes:
        field = err.field if isinstance(err, DecodeError) else ""
        line = doc.line_of(prefix + fieldvalidation.path_parts(field))
        return [{**base, "line": line, "field": field, "message": err.message}]
    return [
        {
            **base,
            "line": doc.line_of(prefix + fieldvalidation.path_parts(cause.get("field", ""))),
            "field": cause.get("field", ""),
            "message": f"{cause.get('field', '')}: {cause.get('message', '')}",
        }
        for cause in causes
    ]


def _fail(errors: list[dict]) -> ApiError:
    first = errors[0]
    lines = [f"document {e['document']}, line {e['line']}: {e['message']}" for e in errors]
    causes = [
        {"reason": e.get("type") or e["reason"], "message": e["message"], "field": e["field"]} for e in errors
    ]
    details = {"causes": causes, "errors": errors}
    return ApiError(first["code"], first["reason"], "; ".join(lines), details)


def _version(obj: object) -> str:
    api_version = obj.get("apiVersion", "") if isinstance(obj, dict) else ""
    return str(api_version).rsplit("/", 1)[-1]


def apply_text(
    cluster: Cluster, text: str, actor: Actor, allow: Allow | None = None, field_validation: str = "Strict"
) -> dict:
    """Create or configure every object; on any error nothing is written and every error is listed.
    `allow(verb, kind, namespace, name)` raises ApiError for a write the caller may not make (the
    web console's: a create, or a patch that changes the object). `field_validation`: Strict
    (kubectl's default) refuses unknown and repeated fields; Warn lists them in `warnings`."""
    try:
        documents = load_documents(text, keep_duplicates=True)
    except YamlError as err:
        index = err.document or 0
        entry = {"index": index, "document": index + 1, "line": err.line, "field": "", "message": err.message}
        raise ApiError(400, "BadRequest", f"error parsing YAML: {err}", {"errors": [entry]}) from None
    if not documents:
        raise bad_request("no objects passed to apply")
    results, errors, warnings = [], [], []
    with transaction.atomic():
        for doc, prefix, obj in _objects(documents):

            def judge(info, obj, doc=doc, prefix=prefix) -> list[str]:
                return _judge_fields(info, obj, doc, prefix, field_validation)

            try:
                with transaction.atomic():
                    action, body, found = _apply_one(cluster, obj, actor, allow, judge)
            except ApiError as err:
                errors.extend(_error_entries(err, doc, prefix, obj))
                continue
            warnings += found
            meta = body["metadata"]
            results.append(
                {
                    "index": doc.index,
                    "document": doc.index + 1,
                    "line": doc.line_of(prefix),
                    "apiVersion": body["apiVersion"],
                    "kind": body["kind"],
                    "namespace": meta.get("namespace", ""),
                    "name": meta["name"],
                    "action": action,
                    "resourceVersion": meta.get("resourceVersion"),
                }
            )
        if errors:
            raise _fail(errors)
    result = {"kind": "ApplyResult", "revision": cluster.revision, "objects": results}
    if warnings:
        result["warnings"] = warnings
    return result

"""Content negotiation between kubectl and the REST views (cluster/api).

kubectl's `get` sends `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;
as=Table;v=v1beta1;g=meta.k8s.io,application/json`; lists, single GETs and watch events then come
back as Tables, still labelled `Content-Type: application/json`. Everything else gets the object.
Bodies come as JSON, YAML or protobuf (kubectl's typed clients: `create deployment`, `auth can-i`,
`drain`; decoded by cluster.protobuf); any other body type gets 415 listing those.
"""

from __future__ import annotations

from collections.abc import Mapping

from cluster.kubeapi.tables import table_spec, to_table

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (MERGE_PATCH, JSON_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
PROTOBUF = "application/vnd.kubernetes.protobuf"
BODY_TYPES = (JSON, "application/yaml", PROTOBUF)


def table_version(accept: str) -> str | None:
    """The meta.k8s.io Table version the client asks for first ("v1"/"v1beta1"), or None."""
    for part in accept.split(","):
        params = {p.strip().replace(" ", "") for p in part.split(";")}
        if "as=Table" in params and "g=meta.k8s.io" in params:
            for version in ("v1", "v1beta1"):
                if f"v={version}" in params:
                    return version
    return None


def _table(accept: str, kind: str, objects: list[dict], params: Mapping[str, str], rv: str) -> dict | None:
    version = table_version(accept)
    if version is None or table_spec(kind) is None:
        return None
    table = to_table(
        kind, objects, resource_version=rv, include_object=params.get("includeObject", "Metadata")
    )
    table["apiVersion"] = f"meta.k8s.io/{version}"
    return table


def render_list(
    accept: str, kind: str, items: list[dict], revision: int | str, params: Mapping[str, str]
) -> dict | None:
    """A Table for a list when the client asked for one, else None (send the List)."""
    return _table(accept, kind, items, params, str(revision))


def render_object(accept: str, kind: str, obj: dict, params: Mapping[str, str]) -> dict | None:
    """A one-row Table for a single GET when the client asked for one, else None."""
    rv = (obj.get("metadata") or {}).get("resourceVersion", "")
    return _table(accept, kind, [obj], params, rv)


def render_watch_object(accept: str, kind: str, obj: dict, params: Mapping[str, str]) -> dict:
    """What goes in a watch event's "object": a one-row Table for `kubectl get -w`, else obj.

    BOOKMARK and ERROR events carry their object unchanged; call this for ADDED/MODIFIED/DELETED.
    """
    return render_object(accept, kind, obj, params) or obj


def protobuf_only(accept: str) -> bool:
    """True when the client accepts nothing but protobuf, which KubeSim does not write (406)."""
    ranges = [media_type(part) for part in accept.split(",") if part.strip()]
    return bool(ranges) and all(r.startswith(PROTOBUF) for r in ranges)


def media_type(content_type: str) -> str:
    """ "application/json; charset=utf-8" -> "application/json"."""
    return content_type.split(";")[0].strip().lower()


def unsupported_body(content_type: str, patch: bool = False) -> dict | None:
    """A 415 Status for a body type we do not read, or None when we read it."""
    mt = media_type(content_type)
    accepted = PATCH_TYPES if patch else BODY_TYPES
    if mt in accepted:
        return None
    if patch:
        message = (
            f"the body of the request was in an unknown format - accepted media types include: "
            f"{', '.join(PATCH_TYPES)}"
        )
    else:
        message = (
            f"the body of the request was in an unknown format - accepted media types include: "
            f"{', '.join(BODY_TYPES)}"
        )
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "UnsupportedMediaType",
        "details": {},
        "code": 415,
    }

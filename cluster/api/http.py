"""Request and response plumbing shared by the REST views: bodies, Status errors, the caller."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse

from cluster.apiserver.actor import Actor
from cluster.apiserver.decoding import load_json, text_of
from cluster.apiserver.errors import ApiError, bad_request, too_large
from cluster.apiserver.managedfields import prefix_from_user_agent
from cluster.apiserver.patch import load_apply_body
from cluster.auth import escalation
from cluster.flow.writers import REQUEST
from cluster.kubeapi.negotiation import unsupported_body
from cluster.protobuf import codec

JSON = "application/json"
PROTOBUF = codec.MEDIA_TYPE
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "application/apply-patch+yaml")


def json_response(data: object, status: int = 200) -> HttpResponse:
    return HttpResponse(json.dumps(data, separators=(",", ":")), status=status, content_type=JSON)


def error_response(err: ApiError) -> HttpResponse:
    response = json_response(err.status(), err.code)
    seconds = (err.details or {}).get("retryAfterSeconds") if err.code == 429 else None
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


def media_type(request: HttpRequest) -> str:
    return (request.content_type or "").split(";")[0].strip().lower()


def read_body(request: HttpRequest) -> bytes:
    """The raw body; 413 when it exceeds DATA_UPLOAD_MAX_MEMORY_SIZE (declared or actual length)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if limit is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    try:
        return request.body
    except RequestDataTooBig:
        raise too_large(limit) from None


def decode_json(raw: bytes, duplicates: list[str] | None = None) -> object:
    """Strict UTF-8, at most MAX_DEPTH levels, then JSON: a 400 Status for anything else.
    `duplicates` collects the paths of keys given twice (see decoding.load_json)."""
    return load_json(raw, duplicates=duplicates)


def decode_protobuf(raw: bytes, api_version: str, kind: str) -> dict:
    """A protobuf body as the dict its JSON twin parses to; 400 (415 for an unread encoding) worded
    as upstream's transformDecodeError words a body that cannot be decoded into `kind`."""
    try:
        return codec.decode(raw, api_version, kind)
    except codec.ProtobufError as err:
        if err.unsupported:
            raise ApiError(415, "UnsupportedMediaType", err.message) from None
        if err.kind:
            message = f'{err.kind} in version "{err.version}" cannot be handled as a {kind}: {err.message}'
        else:
            message = f"the object provided is unrecognized (must be of type {kind}): {err.message} "
            message += f"({codec.summarize(raw)})"
        raise bad_request(message) from None


def parse_object(
    request: HttpRequest, into: tuple[str, str] = ("", ""), duplicates: list[str] | None = None
) -> dict:
    """A JSON, YAML or protobuf request body as one object; 400 when malformed, 415 for other media
    types. `into` is the (apiVersion, kind) the endpoint decodes into, the default for a protobuf
    envelope that leaves them out. `duplicates` collects a JSON body's repeated fields."""
    raw = read_body(request)
    kind = media_type(request)
    if kind in ("", JSON):
        data = decode_json(raw, duplicates)
    elif kind == PROTOBUF:
        data = decode_protobuf(raw, *into)
    elif kind in YAML_TYPES:
        data = load_apply_body(text_of(raw))
    else:
        raise unsupported(kind)
    if not isinstance(data, dict):
        raise bad_request("the request body must be a JSON object")
    return data


def unsupported(content_type: str, patch: bool = False) -> ApiError:
    """415, worded as the real API server words it (it tells the student the `kubectl apply` way)."""
    status = unsupported_body(content_type, patch=patch) or {}
    return ApiError(415, "UnsupportedMediaType", status.get("message") or content_type)


def actor_for(request: HttpRequest) -> Actor:
    """kubectl by its User-Agent, the dashboard by X-KubeSim-Client, anything else is "api"; the
    field manager as upstream's managerOrUserAgent derives it."""
    agent = request.headers.get("User-Agent", "")
    client = request.headers.get("X-KubeSim-Client", "").strip().lower()
    manager = request.GET.get("fieldManager", "") or prefix_from_user_agent(agent)
    grants = escalation.checker(request)
    if client in ("web", "upload"):
        detail = request.headers.get("X-KubeSim-Detail", "") or "web form"
        manager = request.GET.get("fieldManager", "")
        return Actor(client, detail, flow=REQUEST, field_manager=manager, grants=grants)
    if agent.startswith("kubectl"):
        return Actor("kubectl", agent, flow=REQUEST, field_manager=manager, grants=grants)
    return Actor("api", agent, flow=REQUEST, field_manager=manager, grants=grants)


def flag(request: HttpRequest, name: str) -> bool:
    return request.GET.get(name, "").lower() in ("1", "true")


def dry_run(request: HttpRequest) -> bool:
    return request.GET.get("dryRun", "") == "All"

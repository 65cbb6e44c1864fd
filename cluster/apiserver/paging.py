"""List paging: `limit` and `continue`, as kube-apiserver's etcd3 storage serves them.

A page holds at most `limit` items in key order (namespace/name); when more remain, the list's
`metadata.continue` is an opaque token (base64 of `{"v":"meta.k8s.io/v1","rv":N,"start":KEY}`,
upstream's own shape) and `metadata.remainingItemCount` says how many are left (only when no
selector filtered the list, as upstream). Every page of one list is read at the revision of its
first page (`history.objects_at`), so a list read in chunks is as consistent as one read whole;
a token whose revision was compacted away answers 410 Expired, a malformed one 400.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from cluster.apiserver import history
from cluster.apiserver.errors import ApiError, bad_request
from cluster.apiserver.fields import fields_match, parse_field_selector
from cluster.apiserver.reads import info_for, list_objects
from cluster.apiserver.selectors import labels_match, parse_label_selector
from cluster.models import Cluster

TOKEN_VERSION = "meta.k8s.io/v1"
TOO_OLD = (
    "The provided continue parameter is too old to display a consistent list result. You can start a "
    "new list without the continue parameter, or use the continue token in this response to retrieve "
    "the remainder of the results. Continuing with the provided token results in an inconsistent list - "
    "objects that were created, modified, or deleted between the time the first chunk was returned and "
    "now may show up in the list."
)


@dataclass(slots=True)
class Page:
    items: list[dict]
    revision: int
    continue_token: str = ""
    remaining: int | None = None


def parse_limit(text: str | None) -> int:
    """`?limit=N`: 0 (no limit) when absent or not positive; 400 when not an integer."""
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        raise bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None
    return max(value, 0)


def _key(obj: dict, namespace: str | None) -> str:
    meta = obj.get("metadata") or {}
    if namespace or not meta.get("namespace"):
        return meta.get("name", "")
    return f"{meta['namespace']}/{meta.get('name', '')}"


def encode(revision: int, start: str) -> str:
    doc = {"v": TOKEN_VERSION, "rv": revision, "start": start + "\x00"}
    raw = json.dumps(doc, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str) -> tuple[int, str]:
    """(revision, the key the next page starts after); 400 in upstream's words when malformed."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        doc = json.loads(raw)
    except (binascii.Error, ValueError) as err:
        raise bad_request(f"invalid continue token: continue key is not valid: {err}") from None
    if not isinstance(doc, dict) or doc.get("v") != TOKEN_VERSION:
        message = "continue key is not valid: server does not recognize this encoded version"
        raise bad_request(f"invalid continue token: {message}")
    revision, start = doc.get("rv"), doc.get("start")
    if not isinstance(revision, int) or isinstance(revision, bool) or revision <= 0:
        message = (
            f"continue key is not valid: incorrect encoded start resourceVersion (version {TOKEN_VERSION})"
        )
        raise bad_request(f"invalid continue token: {message}")
    if not isinstance(start, str) or not start:
        raise bad_request("invalid continue token: continue key is not valid: encoded start key is empty")
    return revision, start.rstrip("\x00")


def _at(cluster: Cluster, kind: str, namespace: str | None, labels: str, fields: str, revision: int) -> list:
    info = info_for(kind)
    label_rules, field_rules = parse_label_selector(labels), parse_field_selector(kind, fields)
    try:
        items = history.objects_at(cluster.pk, revision, (kind,))[kind]
    except ApiError as err:
        if err.code == 410:
            raise ApiError(410, "Expired", TOO_OLD) from None
        raise
    if namespace and info.namespaced:
        items = [i for i in items if (i.get("metadata") or {}).get("namespace") == namespace]
    return [i for i in items if labels_match(label_rules, i) and fields_match(field_rules, i)]


def list_page(
    cluster: Cluster,
    kind: str,
    namespace: str | None,
    label_selector: str = "",
    field_selector: str = "",
    limit: int = 0,
    token: str = "",
) -> Page:
    """One page of a list (the whole list when there is neither limit nor token)."""
    if token:
        revision, start = decode(token)
        items = _at(cluster, kind, namespace, label_selector, field_selector, revision)
        items = [i for i in items if _key(i, namespace) > start]
    else:
        items, revision = list_objects(cluster, kind, namespace, label_selector, field_selector, served=True)
    if not limit and not token:
        return Page(items, revision)
    items.sort(key=lambda i: _key(i, namespace))  # etcd's order: the key as a string
    if not limit or len(items) <= limit:
        return Page(items, revision)
    page = items[:limit]
    filtered = bool(label_selector or field_selector)
    remaining = None if filtered else len(items) - limit
    return Page(page, revision, encode(revision, _key(page[-1], namespace)), remaining)

"""get and list, with label and field selectors; the built-in objects every cluster has (a
kind's `KindInfo.builtins`) beside the stored ones."""

from __future__ import annotations

from collections.abc import Callable

from cluster.apiserver import rows
from cluster.apiserver.errors import ApiError, bad_request, not_found
from cluster.apiserver.fields import FieldRequirement, fields_match, filter_fields, parse_field_selector
from cluster.apiserver.kinds import KindInfo, kind_info
from cluster.apiserver.selectors import LabelRequirement, filter_labels, labels_match, parse_label_selector
from cluster.models import ApiObject, Cluster


def info_for(kind: str) -> KindInfo:
    info = kind_info(kind)
    if info is None:
        raise bad_request(f'no kind "{kind}" is registered')
    return info


def namespace_exists(cluster: Cluster, name: str) -> bool:
    builtins = info_for("Namespace").builtins
    return (builtins is not None and builtins.has("", name)) or ApiObject.objects.filter(
        cluster=cluster, kind="Namespace", namespace="", name=name
    ).exists()


def get(cluster: Cluster, kind: str, namespace: str | None, name: str) -> dict:
    info = info_for(kind)
    namespace = (namespace or "default") if info.namespaced else ""
    row = rows.find(cluster.pk, kind, namespace, name)
    if row is not None:
        return row.body  # freshly decoded: the caller's own copy
    if info.builtins is not None and (builtin := info.builtins.find(cluster, namespace, name)) is not None:
        return builtin
    raise not_found(info, name)


def _revision(cluster: Cluster) -> int:
    return rows.revisions(cluster.pk)[0]


def list_objects(
    cluster: Cluster,
    kind: str,
    namespace: str | None = None,
    label_selector: str = "",
    field_selector: str = "",
    served: bool = False,
) -> tuple[list[dict], int]:
    """Items (by namespace, name) and the revision they are consistent with.

    The revision is read before and after the rows; when a write slipped in between we retry, so a
    watch from the returned revision replays nothing the items already show (rarely, under a storm
    of writes, it may: an event whose revision is ≤ the item's resourceVersion is old news).
    """
    fetch, complete = _listing(cluster, kind, namespace, label_selector, field_selector, served)
    for _attempt in range(3):
        before = _revision(cluster)
        bodies = fetch()
        if _revision(cluster) == before:
            break
    return complete(bodies), before


def list_items(
    cluster: Cluster, kind: str, namespace: str | None = None, label_selector: str = ""
) -> list[dict]:
    """`list_objects`' items alone, read with one statement, for readers that need no revision to
    watch from (lab checks: each statement is one more wait for the GIL under a class)."""
    fetch, complete = _listing(cluster, kind, namespace, label_selector, "", False)
    return complete(fetch())


def _listing(
    cluster: Cluster, kind: str, namespace: str | None, label_selector: str, field_selector: str, served: bool
) -> tuple[Callable[[], list[dict]], Callable[[list[dict]], list[dict]]]:
    """What reads the stored bodies (a fresh query each call), and what turns them into the listed
    items (the selectors the query could not apply, the built-in objects every cluster has)."""
    info = info_for(kind)
    labels = parse_label_selector(label_selector)
    fields = parse_field_selector(kind, field_selector)
    in_namespace = namespace if namespace and info.namespaced else ""
    if labels and not fields:
        in_sql = [req for req in labels if req.operator in rows.SQL_LABEL_OPERATORS]
        label_rest = [req for req in labels if req.operator not in rows.SQL_LABEL_OPERATORS]
        field_rest = fields

        def fetch() -> list[dict]:
            return rows.decoded_bodies_labelled(cluster.pk, kind, in_namespace, in_sql)
    elif labels or fields:
        queryset = ApiObject.objects.filter(cluster=cluster, kind=kind)
        if in_namespace:
            queryset = queryset.filter(namespace=in_namespace)
        queryset, label_rest = filter_labels(queryset, labels)
        queryset, field_rest = filter_fields(kind, queryset, fields)
        found = queryset.order_by("namespace", "name").values_list("body", flat=True)

        def fetch() -> list[dict]:
            return list(found.all())
    else:
        label_rest, field_rest = labels, fields

        def fetch() -> list[dict]:
            return rows.decoded_bodies(cluster.pk, kind, in_namespace)

    def complete(bodies: list[dict]) -> list[dict]:
        items = [b for b in bodies if labels_match(label_rest, b) and fields_match(field_rest, b)]
        return _with_builtins(cluster, info, namespace, labels, fields, items, served)

    return fetch, complete


def _with_builtins(
    cluster: Cluster,
    info: KindInfo,
    namespace: str | None,
    labels: list[LabelRequirement],
    fields: list[FieldRequirement],
    items: list[dict],
    served: bool = False,
) -> list[dict]:
    """The listed items and the kind's built-in objects that are not stored, in key order (those
    shown to the API's clients only when `served`)."""
    if info.builtins is None:
        return items
    stored = {(b["metadata"].get("namespace", ""), b["metadata"]["name"]) for b in items}
    keys = [
        key
        for key in info.builtins.every_key(cluster)
        if key not in stored
        and (not (namespace and info.namespaced) or key[0] == namespace)
        and (served or key not in info.builtins.clients_only)
    ]  # a namespace's list builds only its own (kube-system's pods are not built for default's)
    built = (info.builtins.build(cluster, *key) for key in keys)
    extra = [b for b in built if labels_match(labels, b) and fields_match(fields, b)]
    return sorted(items + extra, key=lambda b: (b["metadata"].get("namespace", ""), b["metadata"]["name"]))


def check_kind(obj: object) -> KindInfo:
    """The KindInfo of a request body; 400 when it is not an object of a kind we serve."""
    if not isinstance(obj, dict):
        raise bad_request("the request body must be a JSON object")
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not kind:
        raise bad_request("Object 'Kind' is missing in the request body")
    info = kind_info(kind) if isinstance(kind, str) else None
    if info is None or (api_version and api_version != info.api_version):
        raise ApiError(400, "BadRequest", f'no matches for kind "{kind}" in version "{api_version}"')
    if not isinstance(obj.get("metadata", {}), dict):
        raise bad_request("metadata must be an object")
    return info

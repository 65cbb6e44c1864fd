"""The ResourceQuota admission plugin (staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota,
v1.33): a create is refused when it would take a namespace's ResourceQuota past `spec.hard`.

Upstream's words: `pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1,
limited: pods=1`, and for a pod that names no cpu or memory under a quota that limits them,
`failed quota: q: must specify limits.cpu for: nginx; ...`. Every writer creates through the write
path's admission (store.write), under the cluster row lock, so a controller scaling a Deployment
is held to the quota as it stands at that very write, as kubectl is.

What is used is counted from the stored objects at admission (upstream reads the quota's
`status.used` and updates it in the same request); the quota controller
(cluster/controllers/resourcequota.py) writes the same count, by the same arithmetic (k8s/quota.py),
into `status`. Inside a batch (an RC's creates in one transaction) the count is read once per
quota and each admitted create added to it.
"""

from __future__ import annotations

from cluster.apiserver import rows
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import forbidden
from cluster.apiserver.kinds import KINDS, kind_info
from database.sqlite import memo
from k8s import clock
from k8s import quota as q


def quotas_in(cluster_id: int, namespace: str) -> list[dict]:
    """The namespace's ResourceQuotas, by name (kept through a batch; a quota's write drops them)."""
    found = [
        body
        for body in rows.kept_bodies(cluster_id, "ResourceQuota")
        if (body.get("metadata") or {}).get("namespace") == namespace
    ]
    return sorted(found, key=lambda body: body["metadata"]["name"])


def counted_kinds(hard_names) -> list[str]:
    """The kinds whose objects a quota's resources count."""
    kinds = []
    for info in KINDS.values():
        if info.namespaced and q.matching_resources(info.kind, info.plural, info.group, hard_names):
            kinds.append(info.kind)
    return kinds


def usage_of(quota: dict, objects_by_kind: dict[str, list[dict]]) -> dict:
    """status.used of a quota: the usage of every object it matches, masked to its resources,
    every resource it limits present (0 when nothing uses it)."""
    hard = (quota.get("spec") or {}).get("hard") or {}
    now = clock.now()
    used: dict = {name: q.Total() for name in hard}
    for kind, objects in objects_by_kind.items():
        info = kind_info(kind)
        if info is None:
            continue
        for obj in objects:
            if not q.matches(quota, kind, info.plural, info.group, obj):
                continue
            usage = q.object_usage(kind, info.plural, info.group, obj, now)
            q.add(used, {name: total for name, total in usage.items() if name in hard})
    return used


def _stored_usage(cluster_id: int, quota: dict) -> dict:
    meta = quota["metadata"]
    key = ("objects", cluster_id, "quota-used", meta["namespace"], meta["name"], meta.get("resourceVersion"))
    kept = memo.get(key)
    if kept is not None:
        return kept
    hard = (quota.get("spec") or {}).get("hard") or {}
    objects = {kind: rows.decoded_bodies(cluster_id, kind, meta["namespace"]) for kind in counted_kinds(hard)}
    used = usage_of(quota, objects)
    memo.put(key, used)
    return used


def check(cluster, kind: str, body: dict) -> None:
    """Refuse a new object that one of its namespace's quotas has no room for, in upstream's words."""
    info = kind_info(kind)
    meta = body.get("metadata") or {}
    namespace = meta.get("namespace") or ""
    if info is None or not info.namespaced or not namespace:
        return
    quotas = quotas_in(cluster.pk, namespace)
    if not quotas:
        return
    name = meta.get("name") or meta.get("generateName") or "Unknown"
    delta = q.object_usage(kind, info.plural, info.group, body, clock.now())
    admitted = []
    for quota in quotas:
        if not q.matches(quota, kind, info.plural, info.group, body):
            continue
        quota_name = quota["metadata"]["name"]
        hard = (quota.get("spec") or {}).get("hard") or {}
        restricted = q.matching_resources(kind, info.plural, info.group, hard)
        if kind == "Pod" and (missing := q.missing_requests(body, restricted)):
            raise forbidden(
                info.plural, name, f"failed quota: {quota_name}: must specify {missing}", info.group
            )
        requested = {name_: total for name_, total in delta.items() if name_ in hard}
        if all(total.value == 0 for total in requested.values()):
            continue
        used = _stored_usage(cluster.pk, quota)
        over = q.exceeds(used, requested, hard)
        if over:
            why = (
                f"exceeded quota: {quota_name}, requested: {q.pretty(requested, over)}, "
                f"used: {q.pretty(used, over)}, limited: {q.pretty(hard_totals(hard), over)}"
            )
            raise forbidden(info.plural, name, why, info.group)
        admitted.append((used, requested))
    # Admitted by every quota: what a batch keeps of their usage counts this object from now on.
    for used, requested in admitted:
        q.add(used, requested)


def hard_totals(hard: dict) -> dict:
    """spec.hard as printed quantities (`1Gi`, `500m`)."""
    return {name: q.total_of(value) for name, value in hard.items()}


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    if verb == "create":
        check(cluster, kind, body)


def install() -> None:
    chain.register(admit)

"""pods/eviction: a deletion that asks the pod's PodDisruptionBudget first, as kube-apiserver's
`pkg/registry/core/pod/storage/eviction.go` does (v1.33).

A pod that is Pending, terminal or already terminating is deleted without asking. Otherwise the
one budget whose selector matches the pod decides: none, and the pod is deleted; more than one is
a 500; a budget the disruption controller has not observed since its last change is a 429 ("is
still being processed"); a budget with no disruption left is a 429 TooManyRequests naming it
("needs 2 healthy pods and has 2 currently"). A granted eviction spends one disruption (the pod
goes into the budget's `disruptedPods`, so the controller does not count it as healthy), marks
the pod's DisruptionTarget condition, and deletes it gracefully with the eviction's DeleteOptions,
all in one transaction.
"""

from __future__ import annotations

import dataclasses

from django.db import transaction

from cluster.apiserver import cascade, defaults, graceful, store
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError, Cause, bad_request, invalid
from cluster.apiserver.fielderrors import go_value
from cluster.apiserver.reads import info_for
from cluster.apiserver.service import DELETE_OPTIONS
from cluster.apiserver.writes import check_version, locked_row
from cluster.models import ApiObject, Cluster
from k8s.labels import SelectorError, label_selector

MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MAX_DISRUPTED_PODS = 2000
MORE_THAN_ONE = (
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
)
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def too_many_requests(cause: str, retry_after: int = 0) -> ApiError:
    details: dict = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    return ApiError(429, "TooManyRequests", MESSAGE, details)


def _can_ignore_budget(pod: dict) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or graceful.terminating(pod)


def _why_ignored(pod: dict) -> str:
    return "Terminating" if graceful.terminating(pod) else (pod.get("status") or {}).get("phase", "")


def _budgets(locked: Cluster, pod: dict) -> list[ApiObject]:
    labels = pod["metadata"].get("labels") or {}
    found = []
    rows = ApiObject.objects.filter(
        cluster_id=locked.pk, kind="PodDisruptionBudget", namespace=pod["metadata"].get("namespace", "")
    ).order_by("name")
    for row in rows:
        selector = (row.body.get("spec") or {}).get("selector")
        if not isinstance(selector, dict) or not (
            selector.get("matchLabels") or selector.get("matchExpressions")
        ):
            continue  # a nil or empty selector matches nothing
        try:
            if label_selector(selector)(labels):
                found.append(row)
        except SelectorError:
            continue  # an invalid selector matches nothing
    return found


def _ready(pod: dict) -> bool:
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (pod.get("status") or {}).get("conditions") or []
    )


def _spend(locked: Cluster, row: ApiObject, pod_name: str, dry: bool, actor: Actor) -> None:
    """checkAndDecrement: one disruption from the budget, or the 429/403 that refuses it."""
    pdb = store.clone(row.body)
    name, status = pdb["metadata"]["name"], pdb.setdefault("status", {})
    if int(status.get("observedGeneration") or 0) < int(pdb["metadata"].get("generation") or 0):
        raise too_many_requests(f"The disruption budget {name} is still being processed by the server.", 10)
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0 or len(status.get("disruptedPods") or {}) > MAX_DISRUPTED_PODS:
        why = "pdb disruptions allowed is negative" if allowed < 0 else "DisruptedPods map too big"
        message = f'poddisruptionbudget.policy "{name}" is forbidden: {why}'
        raise ApiError(
            403, "Forbidden", message, {"name": name, "group": "policy", "kind": "poddisruptionbudget"}
        )
    if allowed == 0:
        desired, healthy = int(status.get("desiredHealthy") or 0), int(status.get("currentHealthy") or 0)
        raise too_many_requests(
            f"The disruption budget {name} needs {desired} healthy pods and has {healthy} currently"
        )
    status["disruptionsAllowed"] = allowed - 1
    if allowed - 1 == 0:
        status["conditions"] = _insufficient(status, pdb["metadata"].get("generation", 1))
    if dry:
        return
    status["disruptedPods"] = {**(status.get("disruptedPods") or {}), pod_name: defaults.now_rfc3339()}
    store.write(locked, "status", "PodDisruptionBudget", pdb, row, actor)


def _insufficient(status: dict, generation: int) -> list[dict]:
    now = defaults.now_rfc3339()
    kept = [c for c in status.get("conditions") or [] if c.get("type") != "DisruptionAllowed"]
    old = next((c for c in status.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), {})
    stamp = old.get("lastTransitionTime") if old.get("status") == "False" else now
    return [
        *kept,
        {
            "type": "DisruptionAllowed",
            "status": "False",
            "observedGeneration": status.get("observedGeneration", generation),
            "lastTransitionTime": stamp or now,
            "reason": "InsufficientPods",
            "message": "",
        },
    ]


def _mark_disruption_target(locked: Cluster, row: ApiObject, actor: Actor) -> ApiObject:
    """The pod's DisruptionTarget condition (EvictionByEvictionAPI), written before its deletion."""
    pod = store.clone(row.body)
    conditions = [
        c
        for c in (pod.setdefault("status", {}).get("conditions") or [])
        if c.get("type") != "DisruptionTarget"
    ]
    conditions.append(
        {
            "type": "DisruptionTarget",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": defaults.now_rfc3339(),
            "reason": "EvictionByEvictionAPI",
            "message": "Eviction API: evicting",
        }
    )
    pod["status"]["conditions"] = conditions
    return store.write(locked, "status", "Pod", pod, row, actor)


def evict(
    cluster: Cluster, namespace: str, name: str, eviction: dict, actor: Actor, dry: bool = False
) -> dict:
    """POST …/pods/NAME/eviction: the Status to answer (201 Success, or a 500 Status for a pod
    that more than one budget covers); raises ApiError for 404, 429, 403, 409, 400."""
    meta = eviction.get("metadata") or {}
    if meta.get("name", "") != name:
        raise bad_request("name in URL does not match name in Eviction object")
    options = eviction.get("deleteOptions") or {}
    grace = graceful.grace_from_body(options)
    preconditions = options.get("preconditions") or {}
    propagation = options.get("propagationPolicy") or cascade.BACKGROUND
    if propagation not in cascade.PROPAGATION_POLICIES:
        supported = ", ".join(f'"{p}"' for p in ("Foreground", "Background", "Orphan"))
        message = f"Unsupported value: {go_value(propagation)}: supported values: {supported}"
        raise invalid(DELETE_OPTIONS, "", [Cause("FieldValueNotSupported", "propagationPolicy", message)])
    dry = dry or "All" in (options.get("dryRun") or ())
    info = info_for("Pod")
    actor = dataclasses.replace(actor, subresource="eviction")
    with transaction.atomic():
        locked, row = locked_row(cluster, info, namespace, name)
        check_version(info, name, preconditions.get("resourceVersion"), row)
        graceful.check_uid(info, name, preconditions.get("uid"), row.uid)
        pod = row.body
        if _can_ignore_budget(pod):
            actor.budget = ("ignored", _why_ignored(pod))
        else:
            budgets = _budgets(locked, pod)
            if len(budgets) > 1:
                return {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": MORE_THAN_ONE,
                    "code": 500,
                }
            if budgets:
                status = budgets[0].body.get("status") or {}
                desired, healthy = (
                    int(status.get("desiredHealthy") or 0),
                    int(status.get("currentHealthy") or 0),
                )
                unready_spare = not _ready(pod) and healthy >= desired and desired > 0
                budget = budgets[0].name
                if unready_spare:
                    actor.budget = ("spare", budget)
                else:
                    _spend(locked, budgets[0], name, dry, actor)
                    left = int(status.get("disruptionsAllowed") or 0) - 1
                    actor.budget = ("spent", budget, str(left))
            else:
                actor.budget = ("none",)
            if not dry:
                row = _mark_disruption_target(locked, row, actor)
        if not dry:
            cascade.delete(locked, row, actor, propagation, grace)
    cluster.revision = locked.revision
    return dict(SUCCESS)

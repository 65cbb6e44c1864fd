"""Graceful deletion, as kube-apiserver's `rest.BeforeDelete` and the Pod strategy's
`CheckGracefulDelete` define it.

Only Pods are deleted gracefully. A pod bound to a node and not yet terminal gets
`metadata.deletionTimestamp` (now + the grace period) and `metadata.deletionGracePeriodSeconds`;
its kubelet stops the containers and then deletes it with grace 0. The grace period is
DeleteOptions.gracePeriodSeconds, else the pod's `spec.terminationGracePeriodSeconds` (defaulted
to 30); a negative one counts as 1 s. A pod never bound to a node, or already Succeeded/Failed, is
removed at once, as is any pod deleted with grace 0. A second deletion may only shorten the period.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cluster.apiserver import store
from cluster.apiserver.errors import bad_request, conflict
from cluster.apiserver.fielderrors import go_value
from cluster.apiserver.kinds import KindInfo
from k8s import clock

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

# The object already waits for its kubelet with a grace period no longer than the one asked for.
PENDING = object()


def terminating(body: dict) -> bool:
    return bool((body.get("metadata") or {}).get("deletionTimestamp"))


def grace_from_query(value: str | None) -> int | None:
    """`?gracePeriodSeconds=N`; 400 when N is not an integer (the parameter codec's words)."""
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise bad_request(f"strconv.ParseInt: parsing {go_value(value)}: invalid syntax") from None


def grace_from_body(options: dict) -> int | None:
    """DeleteOptions.gracePeriodSeconds from the body: an int64 or absent/null; 400 otherwise, as
    Go's JSON decoder words it."""
    value = options.get("gracePeriodSeconds")
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    kinds = {bool: "bool", str: "string", list: "array", dict: "object"}
    found = kinds.get(type(value)) or f"number {value}"
    raise bad_request(
        f"json: cannot unmarshal {found} into Go struct field DeleteOptions.gracePeriodSeconds of type int64"
    )


def pod_grace(pod: dict, requested: int | None) -> int:
    """CheckGracefulDelete: the grace period this pod's deletion gets (0: remove it now)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    if requested is not None:
        period = requested
    else:
        default = spec.get("terminationGracePeriodSeconds")
        period = default if isinstance(default, int) and not isinstance(default, bool) else 0
    if not spec.get("nodeName"):
        return 0  # never scheduled: no kubelet has anything to stop
    if status.get("phase") in ("Succeeded", "Failed"):
        return 0  # already terminated
    return period


def mark(kind: str, body: dict, requested: int | None):
    """The object to store instead of removing it (a new dict with deletionTimestamp set or
    shortened), PENDING when nothing changes, or None when it is removed at once."""
    if kind != "Pod":
        return None
    if requested is not None and requested < 0:
        requested = 1  # negative values are treated as 1 s on the delete path
    meta = body.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        current = meta.get("deletionGracePeriodSeconds")
        if not isinstance(current, int) or current <= 0:
            return None  # stamped without a period: delete now (upstream's recovery path)
        if requested is None or requested >= current:
            return PENDING
        if requested == 0:
            return None
        marked = store.clone(body)
        started = _parse(meta["deletionTimestamp"]) - timedelta(seconds=current)
        marked["metadata"]["deletionTimestamp"] = (started + timedelta(seconds=requested)).strftime(
            TIME_FORMAT
        )
        marked["metadata"]["deletionGracePeriodSeconds"] = requested
        return marked
    period = pod_grace(body, requested)
    if period <= 0:
        return None
    marked = store.clone(body)
    due = clock.now() + timedelta(seconds=period)
    marked["metadata"]["deletionTimestamp"] = due.strftime(TIME_FORMAT)
    marked["metadata"]["deletionGracePeriodSeconds"] = period
    return marked


def _parse(text: str) -> datetime:
    return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)


def check_uid(info: KindInfo, name: str, wanted: object, stored_uid: str) -> None:
    """DeleteOptions.preconditions.uid: 409 Conflict when it names another object (as upstream)."""
    if wanted not in (None, "") and str(wanted) != stored_uid:
        why = f"Precondition failed: UID in precondition: {wanted}, UID in object meta: {stored_uid}"
        raise conflict(info, name, why)

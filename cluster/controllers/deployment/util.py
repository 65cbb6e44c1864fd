"""Upstream's `pkg/controller/deployment/util/deployment_util.go` (v1.33), on the objects as dicts.

Pure functions: the revision and replica annotations, the conditions, maxSurge/maxUnavailable,
which ReplicaSet is new and which are old, and the predicates the rollout decides with
(complete, progressing, timed out, saturated). Times are passed in, so the tables of upstream's
tests run as they are (`tests/controllers/deployment/`).
"""

from __future__ import annotations

import copy
import json
import math
from datetime import datetime, timedelta

from cluster.controllers.pods import ALPHANUMS
from cluster.kubeapi.humanize import parse_time

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
ROLLBACK_TO = "deprecated.deployment.rollback.to"  # apps.DeprecatedRollbackTo
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
HASH_LABEL = "pod-template-hash"  # apps.DefaultDeploymentUniqueLabelKey
MAX_INT32 = 2**31 - 1

# Event reasons of a rollback.
ROLLBACK_REVISION_NOT_FOUND = "DeploymentRollbackRevisionNotFound"
ROLLBACK_TEMPLATE_UNCHANGED = "DeploymentRollbackTemplateUnchanged"
ROLLBACK_DONE = "DeploymentRollback"

# Condition reasons. Progressing:
REPLICA_SET_UPDATED = "ReplicaSetUpdated"
FAILED_RS_CREATE = "ReplicaSetCreateError"
NEW_REPLICA_SET = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
# Available:
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"

PROGRESSING, AVAILABLE, REPLICA_FAILURE = "Progressing", "Available", "ReplicaFailure"

# Annotations a Deployment does not copy to its ReplicaSets (nor back on a rollback).
ANNOTATIONS_TO_SKIP = frozenset(
    {LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO}
)


class FencepostError(ValueError):
    """intstr's "invalid value for IntOrString" (validation keeps it from stored objects)."""


# -- small accessors -------------------------------------------------------------------------------
def spec(obj: dict | None) -> dict:
    return (obj or {}).get("spec") or {}


def status(obj: dict | None) -> dict:
    return (obj or {}).get("status") or {}


def annotations(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def replicas(obj: dict | None) -> int:
    """*(x.Spec.Replicas) (defaulted to 1 on every stored Deployment and ReplicaSet)."""
    value = spec(obj).get("replicas", 1)
    return value if isinstance(value, int) else 1


def uid(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("uid", "")


def created(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("creationTimestamp") or ""


def by_creation(sets: list[dict]) -> list[dict]:
    """controller.ReplicaSetsByCreationTimestamp: oldest first, then by name."""
    return sorted(sets, key=lambda rs: (created(rs), rs["metadata"]["name"]))


def active(sets: list[dict | None]) -> list[dict]:
    """controller.FilterActiveReplicaSets: those with spec.replicas above zero."""
    return [rs for rs in sets if rs is not None and replicas(rs) > 0]


# -- the rollout's arithmetic ------------------------------------------------------------------------
def scaled_value(value: object, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, bool):
        raise FencepostError(f"invalid value for IntOrString: invalid type: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            percent = int(value[:-1])
        except ValueError:
            raise FencepostError(f"invalid value for IntOrString: invalid value {value!r}") from None
        scaled = percent * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    raise FencepostError("invalid value for IntOrString: invalid type: string is not a percentage")


def resolve_fenceposts(max_surge: object, max_unavailable: object, desired: int) -> tuple[int, int]:
    """ResolveFenceposts: both resolved together; if both are zero, one pod may be unavailable."""
    surge = scaled_value(0 if max_surge is None else max_surge, desired, True)
    unavailable = scaled_value(0 if max_unavailable is None else max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1  # validation refuses both zero; rounding down may still get there
    return surge, unavailable


def is_rolling_update(deployment: dict) -> bool:
    return (spec(deployment).get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def _rolling(deployment: dict) -> dict:
    return (spec(deployment).get("strategy") or {}).get("rollingUpdate") or {}


def max_surge(deployment: dict) -> int:
    if not is_rolling_update(deployment):
        return 0
    rolling = _rolling(deployment)
    return resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), replicas(deployment))[0]


def max_unavailable(deployment: dict) -> int:
    if not is_rolling_update(deployment) or replicas(deployment) == 0:
        return 0
    rolling = _rolling(deployment)
    wanted = replicas(deployment)
    unavailable = resolve_fenceposts(rolling.get("maxSurge"), rolling.get("maxUnavailable"), wanted)[1]
    return min(unavailable, wanted)


def min_available(deployment: dict) -> int:
    if not is_rolling_update(deployment):
        return 0
    return replicas(deployment) - max_unavailable(deployment)


def new_rs_new_replicas(deployment: dict, all_sets: list[dict | None], new: dict) -> int:
    """NewRSNewReplicas: how far the new ReplicaSet may grow now."""
    if is_rolling_update(deployment):
        wanted = replicas(deployment)
        surge = scaled_value(_rolling(deployment).get("maxSurge", 0), wanted, True)
        current = replica_count(all_sets)
        most = wanted + surge
        if current >= most:
            return replicas(new)  # cannot scale up
        return replicas(new) + min(most - current, wanted - replicas(new))
    return replicas(deployment)  # Recreate


def is_saturated(deployment: dict, rs: dict | None) -> bool:
    """IsSaturated: the new ReplicaSet owns all desired replicas, and all are available."""
    if rs is None:
        return False
    try:
        desired = int(annotations(rs).get(DESIRED_REPLICAS, ""))
    except ValueError:
        return False
    wanted = replicas(deployment)
    return replicas(rs) == wanted and desired == wanted and status(rs).get("availableReplicas", 0) == wanted


def get_proportion(rs: dict | None, deployment: dict, to_add: int, added: int) -> int:
    """GetProportion: this ReplicaSet's share of a scaling event during a rollout."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _replica_set_fraction(rs, deployment)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _replica_set_fraction(rs: dict, deployment: dict) -> int:
    if replicas(deployment) == 0:
        return -replicas(rs)
    most = replicas(deployment) + max_surge(deployment)
    before, ok = int_annotation(rs, MAX_REPLICAS)
    if not ok or before == 0:
        before = status(deployment).get("replicas", 0)
        if before == 0:
            return 0  # nothing to be proportional to
    return _round(replicas(rs) * most / before) - replicas(rs)


def _round(value: float) -> int:
    """integer.RoundToInt32: half away from zero."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


# -- counts ----------------------------------------------------------------------------------------
def replica_count(sets: list[dict | None]) -> int:
    """GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(replicas(rs) for rs in sets if rs is not None)


def _status_sum(sets: list[dict | None], key: str) -> int:
    return sum(status(rs).get(key, 0) for rs in sets if rs is not None)


def actual_replica_count(sets: list[dict | None]) -> int:
    return _status_sum(sets, "replicas")


def ready_replica_count(sets: list[dict | None]) -> int:
    return _status_sum(sets, "readyReplicas")


def available_replica_count(sets: list[dict | None]) -> int:
    return _status_sum(sets, "availableReplicas")


# -- revisions and annotations -----------------------------------------------------------------------
def revision(obj: dict) -> int:
    """Revision: the annotation as a number; 0 without one, -1 when it is not a number (skipped)."""
    value = annotations(obj).get(REVISION)
    if value is None:
        return 0
    try:
        return int(value)
    except ValueError:
        return -1


def max_revision(sets: list[dict | None]) -> int:
    return max((revision(rs) for rs in sets if rs is not None), default=0)


def last_revision(sets: list[dict | None]) -> int:
    """LastRevision: the second highest revision (the one before the current)."""
    top = second = 0
    for rs in sets:
        if rs is None:
            continue
        value = revision(rs)
        if value < 0:
            continue
        if value >= top:
            top, second = value, top
        elif value > second:
            second = value
    return second


def int_annotation(rs: dict, key: str) -> tuple[int, bool]:
    value = annotations(rs).get(key)
    if value is None:
        return 0, False
    try:
        return int(value), True
    except ValueError:
        return 0, False


def _own_annotations(obj: dict) -> dict:
    meta = obj.setdefault("metadata", {})
    if meta.get("annotations") is None:
        meta["annotations"] = {}
    return meta["annotations"]


def set_deployment_revision(deployment: dict, value: str) -> bool:
    """SetDeploymentRevision (on a copy the caller owns)."""
    own = _own_annotations(deployment)
    if own.get(REVISION) == value:
        return False
    own[REVISION] = value
    return True


def set_replicas_annotations(rs: dict, desired: int, most: int) -> bool:
    own = _own_annotations(rs)
    updated = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(most))):
        if own.get(key) != value:
            own[key] = value
            updated = True
    return updated


def replicas_annotations_need_update(rs: dict, desired: int, most: int) -> bool:
    own = annotations(rs)
    return own.get(DESIRED_REPLICAS) != str(desired) or own.get(MAX_REPLICAS) != str(most)


def set_new_replica_set_annotations(
    deployment: dict, rs: dict, new_revision: str, exists: bool, history_limit_chars: int
) -> bool:
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations (change-cause among them)
    and raise the revision, keeping the revisions it served before in revision-history."""
    changed = _copy_annotations(deployment, rs)
    own = _own_annotations(rs)
    old = own.get(REVISION)
    try:
        old_number = int(old) if old else 0
    except ValueError:
        return False
    new_number = int(new_revision)
    if old_number < new_number:
        own[REVISION] = new_revision
        changed = True
    if old is not None and old_number < new_number:  # rolled back to this ReplicaSet
        history = own.get(REVISION_HISTORY, "")
        revisions = history.split(",")
        if not revisions[0]:
            own[REVISION_HISTORY] = old
        else:
            total = len(history) + len(old) + 1
            start = 0
            while total > history_limit_chars and start < len(revisions):
                total -= len(revisions[start]) + 1
                start += 1
            if total <= history_limit_chars:
                own[REVISION_HISTORY] = ",".join([*revisions[start:], old])
    if not exists:
        wanted = replicas(deployment)
        if set_replicas_annotations(rs, wanted, wanted + max_surge(deployment)):
            changed = True
    return changed


def _copy_annotations(deployment: dict, rs: dict) -> bool:
    own = _own_annotations(rs)
    changed = False
    for key, value in annotations(deployment).items():
        if key in ANNOTATIONS_TO_SKIP or own.get(key) == value:
            continue
        own[key] = value
        changed = True
    return changed


def set_deployment_annotations_to(deployment: dict, rollback_to: dict) -> None:
    """SetDeploymentAnnotationsTo: a rollback takes the old ReplicaSet's annotations back."""
    kept = {k: v for k, v in annotations(deployment).items() if k in ANNOTATIONS_TO_SKIP}
    kept.update({k: v for k, v in annotations(rollback_to).items() if k not in ANNOTATIONS_TO_SKIP})
    deployment.setdefault("metadata", {})["annotations"] = kept


# -- which ReplicaSet is new -------------------------------------------------------------------------
def without_hash(template: dict | None) -> dict:
    clean = copy.deepcopy(template or {})
    labels = (clean.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH_LABEL, None)
        if not labels:
            clean["metadata"].pop("labels")
    if clean.get("metadata") == {}:
        clean.pop("metadata")
    return clean


def equal_ignore_hash(one: dict | None, other: dict | None) -> bool:
    """EqualIgnoreHash: two pod templates alike but for the pod-template-hash label."""
    return without_hash(one) == without_hash(other)


def find_new_replica_set(deployment: dict, sets: list[dict]) -> dict | None:
    """FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's."""
    template = spec(deployment).get("template")
    return next(
        (rs for rs in by_creation(sets) if equal_ignore_hash(spec(rs).get("template"), template)), None
    )


def find_old_replica_sets(deployment: dict, sets: list[dict]) -> tuple[list[dict], list[dict]]:
    """FindOldReplicaSets: (the old ones with replicas, every old one)."""
    new = find_new_replica_set(deployment, sets)
    every = [rs for rs in sets if new is None or uid(rs) != uid(new)]
    return [rs for rs in every if replicas(rs) != 0], every


def set_from_replica_set_template(deployment: dict, template: dict) -> None:
    """SetFromReplicaSetTemplate: the Deployment takes the template, without the hash label."""
    deployment.setdefault("spec", {})["template"] = without_hash(template)


def compute_hash(template: dict | None, collision_count: int | None = None) -> str:
    """controller.ComputeHash: FNV-1a (32 bit) of the template and the collision count, written
    as rand.SafeEncodeString of the number."""
    data = json.dumps(template or {}, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += str(collision_count).encode()
    return safe_encode(fnv32a(data))


def fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def safe_encode(number: int) -> str:
    """rand.SafeEncodeString(fmt.Sprint(number)): each digit mapped into the alphanumerics."""
    return "".join(ALPHANUMS[ord(ch) % len(ALPHANUMS)] for ch in str(number))


# -- conditions ----------------------------------------------------------------------------------------
def new_condition(type_: str, status_: str, reason: str, message: str, now: str) -> dict:
    return {
        "type": type_,
        "status": status_,
        "lastUpdateTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


def get_condition(status_: dict, type_: str) -> dict | None:
    return next((c for c in status_.get("conditions") or [] if c.get("type") == type_), None)


def set_condition(status_: dict, condition: dict) -> None:
    """SetDeploymentCondition: same status and reason changes nothing; same status keeps the
    transition time."""
    current = get_condition(status_, condition["type"])
    if current is not None and (current.get("status"), current.get("reason")) == (
        condition["status"],
        condition["reason"],
    ):
        return
    if current is not None and current.get("status") == condition["status"]:
        condition = {**condition, "lastTransitionTime": current.get("lastTransitionTime")}
    remove_condition(status_, condition["type"])
    status_.setdefault("conditions", []).append(condition)


def remove_condition(status_: dict, type_: str) -> None:
    kept = [c for c in status_.get("conditions") or [] if c.get("type") != type_]
    if kept:
        status_["conditions"] = kept
    else:
        status_.pop("conditions", None)


def has_progress_deadline(deployment: dict) -> bool:
    value = spec(deployment).get("progressDeadlineSeconds")
    return value is not None and value != MAX_INT32


def has_revision_history_limit(deployment: dict) -> bool:
    value = spec(deployment).get("revisionHistoryLimit")
    return value is not None and value != MAX_INT32


def deployment_complete(deployment: dict, new_status: dict) -> bool:
    """DeploymentComplete: every replica updated and available, no old pod left, generation seen."""
    wanted = replicas(deployment)
    generation = (deployment.get("metadata") or {}).get("generation", 0)
    return (
        new_status.get("updatedReplicas", 0) == wanted
        and new_status.get("replicas", 0) == wanted
        and new_status.get("availableReplicas", 0) == wanted
        and new_status.get("observedGeneration", 0) >= generation
    )


def deployment_progressing(deployment: dict, new_status: dict) -> bool:
    """DeploymentProgressing: new pods up, old pods down, or more ready or available."""
    old = status(deployment)
    old_old = old.get("replicas", 0) - old.get("updatedReplicas", 0)
    new_old = new_status.get("replicas", 0) - new_status.get("updatedReplicas", 0)
    return (
        new_status.get("updatedReplicas", 0) > old.get("updatedReplicas", 0)
        or new_old < old_old
        or new_status.get("readyReplicas", 0) > old.get("readyReplicas", 0)
        or new_status.get("availableReplicas", 0) > old.get("availableReplicas", 0)
    )


def deployment_timed_out(deployment: dict, new_status: dict, now: datetime) -> bool:
    """DeploymentTimedOut: no progress reported for progressDeadlineSeconds."""
    if not has_progress_deadline(deployment):
        return False
    condition = get_condition(new_status, PROGRESSING)
    if condition is None or condition.get("reason") == NEW_RS_AVAILABLE:
        return False
    if condition.get("reason") == TIMED_OUT:
        return True
    since = parse_time(condition.get("lastUpdateTime"))
    if since is None:
        return False
    return since + timedelta(seconds=spec(deployment)["progressDeadlineSeconds"]) < now


def progress_check_in(deployment: dict, new_status: dict, now: datetime) -> float | None:
    """requeueStuckDeployment: seconds until the progress check is due (0: now, less than a
    second was left), or None when no check is needed."""
    current = get_condition(status(deployment), PROGRESSING)
    if not has_progress_deadline(deployment) or current is None:
        return None
    if deployment_complete(deployment, new_status) or current.get("reason") == TIMED_OUT:
        return None
    since = parse_time(current.get("lastUpdateTime"))
    if since is None:
        return None
    after = since + timedelta(seconds=spec(deployment)["progressDeadlineSeconds"]) - now
    return 0.0 if after.total_seconds() < 1 else after.total_seconds()

"""Upstream's `pkg/controller/deployment/sync.go` (v1.33): the new ReplicaSet and the revisions,
proportional scaling, the revision history's cleanup and the Deployment's status."""

from __future__ import annotations

import contextlib
import copy
import functools

from cluster.apiserver.errors import ApiError
from cluster.controllers.deployment import util
from cluster.controllers.deployment.client import DeploymentClient
from cluster.controllers.pods import owner_reference

# Limit of the revision-history annotation (about 100 revisions).
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000


class Sync:
    """sync.go's methods of the Deployment controller (`rollout.Rollout` mixes them in)."""

    client: DeploymentClient

    # -- the ReplicaSets and the revisions ---------------------------------------------------------
    def get_all_replica_sets_and_sync_revision(
        self, d: dict, rs_list: list[dict], create_if_not_existed: bool
    ) -> tuple[dict | None, list[dict]]:
        """getAllReplicaSetsAndSyncRevision: (the new ReplicaSet, every old one), the new one's
        revision raised above the old ones' and copied to the Deployment."""
        _, all_old = util.find_old_replica_sets(d, rs_list)
        new = self.get_new_replica_set(d, rs_list, all_old, create_if_not_existed)
        return new, all_old

    def get_new_replica_set(
        self, d: dict, rs_list: list[dict], old_sets: list[dict], create_if_not_existed: bool
    ) -> dict | None:
        """getNewReplicaSet: the ReplicaSet of the Deployment's template, created when asked."""
        existing = util.find_new_replica_set(d, rs_list)
        new_revision = str(util.max_revision(old_sets) + 1)
        if existing is not None:
            rs = copy.deepcopy(existing)
            changed = util.set_new_replica_set_annotations(
                d, rs, new_revision, True, MAX_REV_HISTORY_LENGTH_IN_CHARS
            )
            min_ready = util.spec(d).get("minReadySeconds", 0)
            if changed or util.spec(rs).get("minReadySeconds", 0) != min_ready:
                rs["spec"]["minReadySeconds"] = min_ready
                return self.client.update_replica_set(rs)
            needs_update = util.set_deployment_revision(d, util.annotations(rs).get(util.REVISION, ""))
            if util.has_progress_deadline(d) and util.get_condition(util.status(d), util.PROGRESSING) is None:
                message = f'Found new replica set "{rs["metadata"]["name"]}"'
                condition = util.new_condition(
                    util.PROGRESSING, "True", util.FOUND_NEW_RS, message, self.now_text()
                )
                util.set_condition(d.setdefault("status", {}), condition)
                needs_update = True
            if needs_update:
                self.client.update_status(d)
            return rs
        if not create_if_not_existed:
            return None
        return self._create_new_replica_set(d, old_sets, new_revision)

    def _create_new_replica_set(self, d: dict, old_sets: list[dict], new_revision: str) -> dict:
        spec = util.spec(d)
        template = copy.deepcopy(spec.get("template") or {})
        collisions = util.status(d).get("collisionCount")
        pod_hash = util.compute_hash(spec.get("template"), collisions)
        labels = {**((template.get("metadata") or {}).get("labels") or {}), util.HASH_LABEL: pod_hash}
        template.setdefault("metadata", {})["labels"] = labels
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[util.HASH_LABEL] = pod_hash
        meta = d["metadata"]
        new = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{meta['name']}-{pod_hash}",
                "namespace": meta.get("namespace", "default"),
                "ownerReferences": [owner_reference(d)],
                "labels": dict(labels),
            },
            "spec": {
                "replicas": 0,
                "minReadySeconds": spec.get("minReadySeconds", 0),
                "selector": selector,
                "template": template,
            },
        }
        count = util.new_rs_new_replicas(d, [*old_sets, new], new)
        new["spec"]["replicas"] = count
        util.set_new_replica_set_annotations(d, new, new_revision, False, MAX_REV_HISTORY_LENGTH_IN_CHARS)
        already_exists = False
        try:
            created = self.client.create_replica_set(new)
        except ApiError as error:
            if error.code == 409:
                already_exists = True
                found = self.client.get_replica_set(new["metadata"]["namespace"], new["metadata"]["name"])
                ref = _controller_of(found) if found is not None else None
                if (
                    ref is not None
                    and ref.get("uid") == meta.get("uid")
                    and util.equal_ignore_hash(spec.get("template"), util.spec(found).get("template"))
                ):
                    created = found
                else:
                    # A hash collision: count it, and the next sync names the ReplicaSet anew.
                    status = d.setdefault("status", {})
                    status["collisionCount"] = (status.get("collisionCount") or 0) + 1
                    self.client.update_status(d)
                    raise
            else:
                message = f'Failed to create new replica set "{new["metadata"]["name"]}": {error.message}'
                if util.has_progress_deadline(d):
                    condition = util.new_condition(
                        util.PROGRESSING, "False", util.FAILED_RS_CREATE, message, self.now_text()
                    )
                    util.set_condition(d.setdefault("status", {}), condition)
                    with contextlib.suppress(ApiError):  # the bigger problem is reported below
                        self.client.update_status(d)
                self.client.event(d, "Warning", util.FAILED_RS_CREATE, message)
                raise
        if not already_exists and count > 0:
            self.client.event(
                d,
                "Normal",
                "ScalingReplicaSet",
                f"Scaled up replica set {created['metadata']['name']} from 0 to {count}",
            )
        needs_update = util.set_deployment_revision(d, new_revision)
        if not already_exists and util.has_progress_deadline(d):
            message = f'Created new replica set "{created["metadata"]["name"]}"'
            condition = util.new_condition(
                util.PROGRESSING, "True", util.NEW_REPLICA_SET, message, self.now_text()
            )
            util.set_condition(d.setdefault("status", {}), condition)
            needs_update = True
        if needs_update:
            self.client.update_status(d)
        return created

    # -- scaling ------------------------------------------------------------------------------------------
    def sync(self, d: dict, rs_list: list[dict]) -> None:
        """sync: a scaling event, or a paused Deployment: scale, never roll out."""
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        self.scale(d, new, old)
        if util.spec(d).get("paused") and self.rollback_to(d) is None:
            self.cleanup_deployment(old, d)
        self.sync_deployment_status([*old, new], new, d)

    def sync_status_only(self, d: dict, rs_list: list[dict]) -> None:
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        self.sync_deployment_status([*old, new], new, d)

    def is_scaling_event(self, d: dict, rs_list: list[dict]) -> bool:
        """isScalingEvent: an active ReplicaSet was sized for another spec.replicas."""
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        for rs in util.active([*old, new]):
            desired, ok = util.int_annotation(rs, util.DESIRED_REPLICAS)
            if ok and desired != util.replicas(d):
                return True
        return False

    def scale(self, d: dict, new: dict | None, old: list[dict]) -> None:
        """scale: proportionally over the active ReplicaSets, so a scaling event during a rollout
        neither hastens nor slows it."""
        latest = _active_or_latest(new, old)
        if latest is not None:
            if util.replicas(latest) != util.replicas(d):
                self.scale_replica_set_and_record_event(latest, util.replicas(d), d)
            return
        if util.is_saturated(d, new):
            for rs in util.active(old):
                self.scale_replica_set_and_record_event(rs, 0, d)
            return
        if not util.is_rolling_update(d):
            return
        sets = util.active([*old, new])
        total = util.replica_count(sets)
        allowed = util.replicas(d) + util.max_surge(d) if util.replicas(d) > 0 else 0
        to_add = allowed - total
        if to_add > 0:  # ReplicaSetsBySizeNewer: larger first, then newer
            sets.sort(key=functools.cmp_to_key(_by_size_newer))
        elif to_add < 0:  # ReplicaSetsBySizeOlder: larger first, then older
            sets.sort(key=lambda rs: (-util.replicas(rs), util.created(rs), rs["metadata"]["name"]))
        added = 0
        sizes = {}
        for rs in sets:
            if to_add != 0:
                proportion = util.get_proportion(rs, d, to_add, added)
                sizes[rs["metadata"]["name"]] = util.replicas(rs) + proportion
                added += proportion
            else:
                sizes[rs["metadata"]["name"]] = util.replicas(rs)
        for index, rs in enumerate(sets):
            name = rs["metadata"]["name"]
            if index == 0 and to_add != 0:  # leftovers to the largest
                sizes[name] = max(sizes[name] + to_add - added, 0)
            self.scale_replica_set(rs, sizes[name], d)

    def scale_replica_set_and_record_event(self, rs: dict, new_scale: int, d: dict) -> tuple[bool, dict]:
        if util.replicas(rs) == new_scale:
            return False, rs
        return self.scale_replica_set(rs, new_scale, d)

    def scale_replica_set(self, rs: dict, new_scale: int, d: dict) -> tuple[bool, dict]:
        """scaleReplicaSet: spec.replicas and the replica annotations in one update; the event
        says which way and from what."""
        wanted = util.replicas(d)
        most = wanted + util.max_surge(d)
        size_changes = util.replicas(rs) != new_scale
        if not size_changes and not util.replicas_annotations_need_update(rs, wanted, most):
            return False, rs
        before = util.replicas(rs)
        changed = copy.deepcopy(rs)
        changed["spec"]["replicas"] = new_scale
        util.set_replicas_annotations(changed, wanted, most)
        stored = self.client.update_replica_set(changed)
        if size_changes:
            way = "up" if before < new_scale else "down"
            message = f"Scaled {way} replica set {stored['metadata']['name']} from {before} to {new_scale}"
            self.client.event(d, "Normal", "ScalingReplicaSet", message)
        return size_changes, stored

    def cleanup_deployment(self, old_sets: list[dict], d: dict) -> None:
        """cleanupDeployment: keep revisionHistoryLimit old ReplicaSets, deleting the oldest
        revisions that run nothing."""
        if not util.has_revision_history_limit(d):
            return
        alive = [rs for rs in old_sets if rs is not None and not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - util.spec(d)["revisionHistoryLimit"]
        if diff <= 0:
            return
        alive.sort(key=lambda rs: (util.revision(rs), util.created(rs), rs["metadata"]["name"]))
        for rs in alive[:diff]:
            generation = rs["metadata"].get("generation", 0)
            if (
                util.status(rs).get("replicas", 0) != 0
                or util.replicas(rs) != 0
                or generation > util.status(rs).get("observedGeneration", 0)
            ):
                continue
            self.client.delete_replica_set(rs)

    # -- status ---------------------------------------------------------------------------------------------
    def sync_deployment_status(self, all_sets: list[dict | None], new: dict | None, d: dict) -> None:
        status = self.calculate_status(all_sets, new, d)
        if util.status(d) == status:
            return
        d["status"] = status
        self.client.update_status(d)

    def calculate_status(self, all_sets: list[dict | None], new: dict | None, d: dict) -> dict:
        """calculateStatus: the counts from the ReplicaSets, and the Available condition."""
        available = util.available_replica_count(all_sets)
        total = util.replica_count(all_sets)
        status = {
            "observedGeneration": d["metadata"].get("generation", 0),
            "replicas": util.actual_replica_count(all_sets),
            "updatedReplicas": util.actual_replica_count([new]),
            "readyReplicas": util.ready_replica_count(all_sets),
            "availableReplicas": available,
            "unavailableReplicas": max(total - available, 0),
        }
        # Zero counts are omitted on the wire (omitempty).
        status = {k: v for k, v in status.items() if v}
        collisions = util.status(d).get("collisionCount")
        if collisions is not None:
            status["collisionCount"] = collisions
        conditions = util.status(d).get("conditions")
        if conditions:
            status["conditions"] = [dict(c) for c in conditions]
        if available >= util.replicas(d) - util.max_unavailable(d):
            condition = util.new_condition(
                util.AVAILABLE,
                "True",
                util.MINIMUM_REPLICAS_AVAILABLE,
                "Deployment has minimum availability.",
                self.now_text(),
            )
        else:
            condition = util.new_condition(
                util.AVAILABLE,
                "False",
                util.MINIMUM_REPLICAS_UNAVAILABLE,
                "Deployment does not have minimum availability.",
                self.now_text(),
            )
        util.set_condition(status, condition)
        return status


def _active_or_latest(new: dict | None, old: list[dict]) -> dict | None:
    """FindActiveOrLatest: the one active ReplicaSet, the newest when none is, None when several are."""
    if new is None and not old:
        return None
    newest_first = sorted(old, key=lambda rs: (util.created(rs), rs["metadata"]["name"]), reverse=True)
    sets = util.active([*newest_first, new])
    if not sets:
        return new if new is not None else newest_first[0]
    return sets[0] if len(sets) == 1 else None


def _controller_of(obj: dict) -> dict | None:
    return next(
        (r for r in (obj.get("metadata") or {}).get("ownerReferences") or [] if r.get("controller")), None
    )


def _by_size_newer(one: dict, other: dict) -> int:
    if util.replicas(one) != util.replicas(other):
        return util.replicas(other) - util.replicas(one)
    first = (util.created(one), one["metadata"]["name"])
    second = (util.created(other), other["metadata"]["name"])
    return (first < second) - (first > second)  # the newer first

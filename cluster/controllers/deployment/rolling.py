"""Upstream's `pkg/controller/deployment/rolling.go` (v1.33): a rolling update, new ReplicaSet up
within maxSurge, old ones down within maxUnavailable, their unhealthy replicas first."""

from __future__ import annotations

from cluster.controllers.deployment import util


class Rolling:
    """rolling.go's methods of the Deployment controller (`rollout.Rollout` mixes them in)."""

    def rollout_rolling(self, d: dict, rs_list: list[dict]) -> None:
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
        all_sets = [*old, new]
        if self.reconcile_new_replica_set(all_sets, new, d):
            self.sync_rollout_status(all_sets, new, d)
            return
        if self.reconcile_old_replica_sets(all_sets, util.active(old), new, d):
            self.sync_rollout_status(all_sets, new, d)
            return
        if util.deployment_complete(d, util.status(d)):
            self.cleanup_deployment(old, d)
        self.sync_rollout_status(all_sets, new, d)

    def reconcile_new_replica_set(self, all_sets: list[dict], new: dict, d: dict) -> bool:
        wanted = util.replicas(d)
        if util.replicas(new) == wanted:
            return False
        if util.replicas(new) > wanted:
            return self.scale_replica_set_and_record_event(new, wanted, d)[0]
        count = util.new_rs_new_replicas(d, all_sets, new)
        return self.scale_replica_set_and_record_event(new, count, d)[0]

    def reconcile_old_replica_sets(
        self, all_sets: list[dict], old_sets: list[dict], new: dict, d: dict
    ) -> bool:
        """reconcileOldReplicaSets: scale old ReplicaSets down as far as availability allows:

        maxScaledDown = allPodsCount - minAvailable - newReplicaSetPodsUnavailable

        so that the new ReplicaSet's unavailable pods never let the old ones shrink further, but
        the old ones' own unhealthy pods go first (cleanupUnhealthyReplicas): undoing a broken
        image scales its pods down even while none of them ever became available.
        """
        old_count = util.replica_count(old_sets)
        if old_count == 0:
            return False
        all_count = util.replica_count(all_sets)
        min_available = util.replicas(d) - util.max_unavailable(d)
        new_unavailable = util.replicas(new) - util.status(new).get("availableReplicas", 0)
        max_scaled_down = all_count - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        old_sets, cleaned = self.cleanup_unhealthy_replicas(old_sets, d, max_scaled_down)
        scaled = self.scale_down_old_replica_sets_for_rolling_update([*old_sets, new], old_sets, d)
        return cleaned + scaled > 0

    def cleanup_unhealthy_replicas(self, old_sets: list[dict], d: dict, most: int) -> tuple[list[dict], int]:
        """cleanupUnhealthyReplicas: scale each old ReplicaSet down by its unavailable replicas
        (its controller deletes not-ready, unscheduled and pending pods first), `most` in all."""
        old_sets = util.by_creation(old_sets)
        total = 0
        for index, rs in enumerate(old_sets):
            if total >= most:
                break
            size = util.replicas(rs)
            available = util.status(rs).get("availableReplicas", 0)
            if size == 0 or size == available:
                continue
            down = min(most - total, size - available)
            if size - down > size:
                raise ValueError(
                    f"when cleaning up unhealthy replicas, got invalid request to scale down "
                    f"{rs['metadata'].get('namespace')}/{rs['metadata']['name']} {size} -> {size - down}"
                )
            _, old_sets[index] = self.scale_replica_set_and_record_event(rs, size - down, d)
            total += down
        return old_sets, total

    def scale_down_old_replica_sets_for_rolling_update(
        self, all_sets: list[dict], old_sets: list[dict], d: dict
    ) -> int:
        """scaleDownOldReplicaSetsForRollingUpdate: while more than minAvailable pods are
        available, the oldest ReplicaSets first."""
        min_available = util.replicas(d) - util.max_unavailable(d)
        available = util.available_replica_count(all_sets)
        if available <= min_available:
            return 0
        total, wanted = 0, available - min_available
        for rs in util.by_creation(old_sets):
            if total >= wanted:
                break
            size = util.replicas(rs)
            if size == 0:
                continue
            down = min(size, wanted - total)
            self.scale_replica_set_and_record_event(rs, size - down, d)
            total += down
        return total

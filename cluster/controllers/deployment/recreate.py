"""Upstream's `pkg/controller/deployment/recreate.go` (v1.33): every old pod gone before the new
ReplicaSet is scaled up."""

from __future__ import annotations

from cluster.controllers.deployment import util


class Recreate:
    """recreate.go's methods of the Deployment controller (`rollout.Rollout` mixes them in)."""

    def rollout_recreate(self, d: dict, rs_list: list[dict], pod_map: dict[str, list[dict]]) -> None:
        # No new ReplicaSet yet: it would scale up before the old ones are down.
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, False)
        all_sets = [*old, new]
        if self.scale_down_old_replica_sets_for_recreate(util.active(old), d):
            self.sync_rollout_status(all_sets, new, d)
            return
        if old_pods_running(new, old, pod_map):
            self.sync_rollout_status(all_sets, new, d)
            return
        if new is None:
            new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
            all_sets = [*old, new]
        self.scale_replica_set_and_record_event(new, util.replicas(d), d)
        if util.deployment_complete(d, util.status(d)):
            self.cleanup_deployment(old, d)
        self.sync_rollout_status(all_sets, new, d)

    def scale_down_old_replica_sets_for_recreate(self, old_sets: list[dict], d: dict) -> bool:
        scaled = False
        for rs in old_sets:
            if util.replicas(rs) == 0:
                continue
            if self.scale_replica_set_and_record_event(rs, 0, d)[0]:
                scaled = True
        return scaled


def old_pods_running(new: dict | None, old_sets: list[dict], pod_map: dict[str, list[dict]]) -> bool:
    """oldPodsRunning: an old ReplicaSet still reports pods, or an old pod is not yet terminal."""
    if util.actual_replica_count(old_sets) > 0:
        return True
    new_uid = util.uid(new) if new is not None else None
    for rs_uid, pods in pod_map.items():
        if rs_uid == new_uid:
            continue
        if any(util.status(pod).get("phase") not in ("Failed", "Succeeded") for pod in pods):
            return True
    return False

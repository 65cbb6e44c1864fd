"""Upstream's `pkg/controller/deployment/progress.go` (v1.33): the Progressing condition, and
ProgressDeadlineExceeded when a rollout shows no progress for progressDeadlineSeconds."""

from __future__ import annotations

from cluster.controllers.deployment import util


class Progress:
    """progress.go's methods of the Deployment controller (`rollout.Rollout` mixes them in)."""

    requeue_after: float | None

    def sync_rollout_status(self, all_sets: list[dict | None], new: dict | None, d: dict) -> None:
        status = self.calculate_status(all_sets, new, d)
        if not util.has_progress_deadline(d):
            util.remove_condition(status, util.PROGRESSING)
        current = util.get_condition(util.status(d), util.PROGRESSING)
        complete_before = (
            status.get("replicas", 0) == status.get("updatedReplicas", 0)
            and current is not None
            and current.get("reason") == util.NEW_RS_AVAILABLE
        )
        name = d["metadata"]["name"]
        what = f'ReplicaSet "{new["metadata"]["name"]}"' if new is not None else f'Deployment "{name}"'
        if util.has_progress_deadline(d) and not complete_before:
            now = self.now_text()
            if util.deployment_complete(d, status):
                condition = util.new_condition(
                    util.PROGRESSING,
                    "True",
                    util.NEW_RS_AVAILABLE,
                    f"{what} has successfully progressed.",
                    now,
                )
                util.set_condition(status, condition)
            elif util.deployment_progressing(d, status):
                condition = util.new_condition(
                    util.PROGRESSING, "True", util.REPLICA_SET_UPDATED, f"{what} is progressing.", now
                )
                # The one condition updated with the same reason: lastUpdateTime marks progress.
                if current is not None:
                    if current.get("status") == "True":
                        condition["lastTransitionTime"] = current.get("lastTransitionTime")
                    util.remove_condition(status, util.PROGRESSING)
                util.set_condition(status, condition)
            elif util.deployment_timed_out(d, status, self.now()):
                condition = util.new_condition(
                    util.PROGRESSING, "False", util.TIMED_OUT, f"{what} has timed out progressing.", now
                )
                util.set_condition(status, condition)
        failures = _replica_failures(all_sets, new)
        if failures:
            util.set_condition(status, failures[0])
        else:
            util.remove_condition(status, util.REPLICA_FAILURE)
        if util.status(d) == status:
            self.requeue_after = util.progress_check_in(d, status, self.now())
            return
        d["status"] = status
        self.client.update_status(d)

    def check_paused_conditions(self, d: dict) -> None:
        """checkPausedConditions: Progressing Unknown while paused, so a resumed Deployment is not
        timed out for the pause."""
        if not util.has_progress_deadline(d):
            return
        current = util.get_condition(util.status(d), util.PROGRESSING)
        if current is not None and current.get("reason") == util.TIMED_OUT:
            return
        paused_before = current is not None and current.get("reason") == util.PAUSED
        paused = bool(util.spec(d).get("paused"))
        if paused and not paused_before:
            condition = util.new_condition(
                util.PROGRESSING, "Unknown", util.PAUSED, "Deployment is paused", self.now_text()
            )
        elif not paused and paused_before:
            condition = util.new_condition(
                util.PROGRESSING, "Unknown", util.RESUMED, "Deployment is resumed", self.now_text()
            )
        else:
            return
        util.set_condition(d.setdefault("status", {}), condition)
        self.client.update_status(d)


def _replica_failures(all_sets: list[dict | None], new: dict | None) -> list[dict]:
    """getReplicaFailures: the new ReplicaSet's ReplicaFailure conditions, else any old one's."""

    def of(rs: dict) -> list[dict]:
        return [
            {
                "type": c.get("type"),
                "status": c.get("status"),
                "lastUpdateTime": c.get("lastTransitionTime"),
                "lastTransitionTime": c.get("lastTransitionTime"),
                "reason": c.get("reason"),
                "message": c.get("message"),
            }
            for c in util.status(rs).get("conditions") or []
            if c.get("type") == util.REPLICA_FAILURE
        ]

    if new is not None and (found := of(new)):
        return found
    return [c for rs in all_sets if rs is not None for c in of(rs)]

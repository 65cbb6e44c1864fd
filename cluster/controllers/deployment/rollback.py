"""Upstream's `pkg/controller/deployment/rollback.go` (v1.33): a rollback asked for with the
`deprecated.deployment.rollback.to` annotation (what apps/v1beta1's rollbackTo round-trips to).

`kubectl rollout undo` does not use it: kubectl patches the old ReplicaSet's template and
annotations into the Deployment itself, and the rollout that follows is an ordinary one.
"""

from __future__ import annotations

from cluster.controllers.deployment import util


class Rollback:
    """rollback.go's methods of the Deployment controller (`rollout.Rollout` mixes them in)."""

    def rollback_to(self, d: dict) -> int | None:
        """getRollbackTo: the revision asked for, or None (an invalid value is ignored)."""
        value = util.annotations(d).get(util.ROLLBACK_TO, "")
        try:
            return int(value) if value else None
        except ValueError:
            return None

    def rollback(self, d: dict, rs_list: list[dict]) -> None:
        new, old = self.get_all_replica_sets_and_sync_revision(d, rs_list, True)
        all_sets = [*old, new]
        wanted = self.rollback_to(d)
        if wanted == 0:
            wanted = util.last_revision(all_sets)
            if wanted == 0:
                self.client.event(
                    d, "Warning", util.ROLLBACK_REVISION_NOT_FOUND, "Unable to find last revision."
                )
                self.update_deployment_and_clear_rollback_to(d)
                return
        for rs in all_sets:
            if rs is not None and util.revision(rs) == wanted:
                if self.rollback_to_template(d, rs):
                    name = d["metadata"]["name"]
                    message = f'Rolled back deployment "{name}" to revision {wanted}'
                    self.client.event(d, "Normal", util.ROLLBACK_DONE, message)
                return
        message = "Unable to find the revision to rollback to."
        self.client.event(d, "Warning", util.ROLLBACK_REVISION_NOT_FOUND, message)
        self.update_deployment_and_clear_rollback_to(d)

    def rollback_to_template(self, d: dict, rs: dict) -> bool:
        """The old ReplicaSet's template and annotations become the Deployment's (its revision
        goes up at the next sync); the same template already: a warning, nothing else."""
        performed = False
        if not util.equal_ignore_hash(util.spec(d).get("template"), util.spec(rs).get("template")):
            util.set_from_replica_set_template(d, util.spec(rs).get("template") or {})
            util.set_deployment_annotations_to(d, rs)
            performed = True
        else:
            name = d["metadata"]["name"]
            message = f'The rollback revision contains the same template as current deployment "{name}"'
            self.client.event(d, "Warning", util.ROLLBACK_TEMPLATE_UNCHANGED, message)
        self.update_deployment_and_clear_rollback_to(d)
        return performed

    def update_deployment_and_clear_rollback_to(self, d: dict) -> None:
        util.annotations(d).pop(util.ROLLBACK_TO, None)
        self.client.update_deployment(d)

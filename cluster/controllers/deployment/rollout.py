"""Upstream's DeploymentController.syncDeployment (`deployment_controller.go`, v1.33): one
reconcile of one Deployment, in upstream's order of precedence: deleted (status only), paused
(scale only), a rollback asked for, a scaling event, then the rollout of its strategy.

The logic is upstream's, written against `client.DeploymentClient`, so that upstream's table
tests drive it with a recording client exactly as they drive the Go controller with a fake
clientset.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime

from cluster.controllers.deployment import util
from cluster.controllers.deployment.client import DeploymentClient
from cluster.controllers.deployment.progress import Progress
from cluster.controllers.deployment.recreate import Recreate
from cluster.controllers.deployment.rollback import Rollback
from cluster.controllers.deployment.rolling import Rolling
from cluster.controllers.deployment.sync import Sync

SELECTING_ALL = "This deployment is selecting all pods. A non-empty selector is required."


class Rollout(Sync, Rolling, Recreate, Progress, Rollback):
    def __init__(self, client: DeploymentClient, now: Callable[[], datetime]) -> None:
        self.client = client
        self.now = now
        # Seconds until the progress deadline must be checked again (requeueStuckDeployment).
        self.requeue_after: float | None = None

    def now_text(self) -> str:
        return self.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    def sync_deployment(self, deployment: dict, rs_list: list[dict], pod_map: dict[str, list[dict]]) -> None:
        """syncDeployment, on a copy of the informer's Deployment; rs_list are the ReplicaSets it
        controls, pod_map their pods by ReplicaSet uid."""
        d = copy.deepcopy(deployment)
        selector = util.spec(d).get("selector") or {}
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            self.client.event(d, "Warning", "SelectingAll", SELECTING_ALL)
            generation = d["metadata"].get("generation", 0)
            if util.status(d).get("observedGeneration", 0) < generation:
                d.setdefault("status", {})["observedGeneration"] = generation
                self.client.update_status(d)
            return
        if d["metadata"].get("deletionTimestamp"):
            self.sync_status_only(d, rs_list)
            return
        self.check_paused_conditions(d)
        if util.spec(d).get("paused"):
            self.sync(d, rs_list)
            return
        if self.rollback_to(d) is not None:
            self.rollback(d, rs_list)
            return
        if self.is_scaling_event(d, rs_list):
            self.sync(d, rs_list)
            return
        if util.is_rolling_update(d):
            self.rollout_rolling(d, rs_list)
        else:
            self.rollout_recreate(d, rs_list, pod_map)

"""The Deployment controller: a ReplicaSet per pod template, rolled out as upstream's controller
does (`rollout.Rollout`), its writes through the API server.

An image upgrade (the notes' "镜像文件升级") changes the template: a new ReplicaSet with a new
pod-template-hash and the next `deployment.kubernetes.io/revision` is scaled up while the old
ones are scaled down, within maxSurge/maxUnavailable; `kubectl rollout undo` puts an old
template back, whose ReplicaSet becomes the newest revision again.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers import texts
from cluster.controllers.deployment import util
from cluster.controllers.deployment.rollout import Rollout
from cluster.controllers.host import ControllerHost
from cluster.controllers.owned import live_owner
from cluster.controllers.pods import controller_ref
from cluster.flow import gate
from cluster.flow.recorder import record_step, skip_steps
from cluster.models import FlowTrace
from k8s import clock

TITLE = "Deployment controller"


@dataclass
class Moves:
    """What one reconcile did to the ReplicaSets, for step 6's sentence."""

    created: str = ""  # the new ReplicaSet's name, when this reconcile created it
    revision: str = ""
    scaled: list[tuple[str, int, int]] = field(default_factory=list)  # (name, before, after)

    @property
    def scales_up(self) -> bool:
        return any(after > before for _, before, after in self.scaled)

    def describe(self) -> list[str]:
        return [f"{name}: {before} → {after}" for name, before, after in self.scaled]


class ApiClient:
    """The rollout's writes, through the API server in the database thread, as the controller
    manager's actor; what it writes is assumed into the informer at once."""

    def __init__(self, cm: ControllerHost, deployment: dict, trace_id: str | None) -> None:
        self.cm = cm
        self.deployment = deployment
        self.actor = cm.actor(trace_id, TITLE)
        self.moves = Moves()

    def create_replica_set(self, rs: dict) -> dict:
        with transaction.atomic():  # no ReplicaSet for a Deployment deleted meanwhile
            if live_owner(store.lock(self.cm.cluster), self.deployment) is None:
                raise ApiError(
                    409, "Conflict", f'deployments.apps "{self.deployment["metadata"]["name"]}" is gone'
                )
            created = api.create(self.cm.cluster, rs, self.actor)
        self.cm.assume(created)
        self.moves.created = created["metadata"]["name"]
        self.moves.revision = util.annotations(created).get(util.REVISION, "")
        if util.replicas(created):
            self.moves.scaled.append((created["metadata"]["name"], 0, util.replicas(created)))
        return created

    def update_replica_set(self, rs: dict) -> dict:
        meta = rs["metadata"]
        before = self.cm.informer.get("ReplicaSet", meta.get("namespace", ""), meta["name"])
        stored = api.update(self.cm.cluster, rs, self.actor)
        self.cm.assume(stored)
        old = util.replicas(before) if before is not None else util.replicas(stored)
        if old != util.replicas(stored):
            self.moves.scaled.append((meta["name"], old, util.replicas(stored)))
        return stored

    def delete_replica_set(self, rs: dict) -> None:
        meta = rs["metadata"]
        try:
            api.delete(self.cm.cluster, "ReplicaSet", meta.get("namespace"), meta["name"], self.actor)
        except ApiError as error:
            if error.code != 404:
                raise
        self.cm.informer.store["ReplicaSet"].pop((meta.get("namespace", ""), meta["name"]), None)

    def get_replica_set(self, namespace: str, name: str) -> dict | None:
        return self.cm.informer.get("ReplicaSet", namespace, name)

    def update_deployment(self, d: dict) -> dict:
        stored = api.update(self.cm.cluster, d, self.actor)
        self.cm.assume(stored)
        return stored

    def update_status(self, d: dict) -> dict:
        body = copy.deepcopy(d)
        body["metadata"].pop("resourceVersion", None)  # the controller owns the status
        stored = api.update(self.cm.cluster, body, self.actor, subresource="status")
        self.cm.assume(stored)
        return stored

    def event(self, obj: dict, type_: str, reason: str, message: str) -> None:
        event_recorder.record(
            self.cm.cluster, obj, reason, message, self.actor, type_=type_, component="deployment-controller"
        )


class DeploymentController:
    kind = "Deployment"

    def __init__(self, manager: ControllerHost) -> None:
        self.cm = manager

    def replica_sets(self, deployment: dict) -> list[dict]:
        """The ReplicaSets it controls (getReplicaSetsForDeployment, without adoption)."""
        uid = deployment["metadata"]["uid"]
        owned = [
            rs for rs in self.cm.informer.items("ReplicaSet") if (controller_ref(rs) or {}).get("uid") == uid
        ]
        return util.by_creation(owned)

    async def sync(self, deployment: dict, trace_id: str | None) -> None:
        meta = deployment["metadata"]
        steps = await db(self.cm.needs_steps)(trace_id, self.kind, meta.get("namespace", ""), meta["name"])
        if steps:
            await gate.before_step(self.cm.cluster_name, trace_id, 5)
            en, zh = texts.event_received(deployment)
            await db(record_step)(trace_id, 5, detail_en=en, detail_zh=zh)
            await gate.before_step(self.cm.cluster_name, trace_id, 6)
        await db(self._reconcile)(deployment, trace_id, steps)

    # -- database thread ---------------------------------------------------------------------
    def _reconcile(self, deployment: dict, trace_id: str | None, steps: bool) -> None:
        sets = self.replica_sets(deployment)
        pod_map = {util.uid(rs): self.cm.owned_pods(rs) for rs in sets}
        client = ApiClient(self.cm, deployment, trace_id)
        rollout = Rollout(client, clock.now)
        # A stale copy or a conflict stops the reconcile: the write's own event brings the next.
        with contextlib.suppress(ApiError, util.FencepostError):
            rollout.sync_deployment(deployment, sets, pod_map)
        meta = deployment["metadata"]
        if rollout.requeue_after is not None:
            # A second more, as upstream's AddAfter: the check must find the deadline passed.
            seconds = rollout.requeue_after + 1
            self.cm.requeue_after(self.kind, meta.get("namespace", ""), meta["name"], seconds)
        if steps:
            self._record_decision(deployment, trace_id, client.moves)

    def _record_decision(self, deployment: dict, trace_id: str, moves: Moves) -> None:
        latest = self.cm.informer.get(
            self.kind, deployment["metadata"].get("namespace", ""), deployment["metadata"]["name"]
        )
        new = util.find_new_replica_set(latest or deployment, self.replica_sets(deployment))
        name = moves.created or (new["metadata"]["name"] if new is not None else "")
        revision = moves.revision or (util.annotations(new).get(util.REVISION, "") if new is not None else "")
        en, zh = texts.rollout_decided(deployment, name, revision, bool(moves.created), moves.describe())
        record_step(trace_id, 6, detail_en=en, detail_zh=zh)
        self.cm.stepped.add(trace_id)
        if not moves.scales_up:
            en, zh = texts.no_new_pod(TITLE, -1 if moves.scaled else 0)
            skip_steps(FlowTrace(pk=trace_id), range(7, 14), en, zh)

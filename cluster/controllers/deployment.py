"""The Deployment controller: a ReplicaSet per pod template, and rolling updates between them.

An image upgrade (the notes' "镜像文件升级") changes the template: a new ReplicaSet with a new
pod-template-hash is scaled up while the old one is scaled down, within maxSurge/maxUnavailable.
"""

from __future__ import annotations

import copy
import json
import math

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers import texts
from cluster.controllers.host import ControllerHost
from cluster.controllers.owned import live_owner
from cluster.controllers.pods import ALPHANUMS, MERGE_PATCH, owner_reference
from cluster.flow import gate
from cluster.flow.recorder import record_step, skip_steps
from cluster.models import FlowTrace

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"


def template_hash(template: dict, collision_count: int = 0) -> str:
    """controller.ComputeHash: FNV-1a (32 bit) of the template, as rand.SafeEncodeString of the number."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += str(collision_count).encode()
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(ALPHANUMS[ord(ch) % len(ALPHANUMS)] for ch in str(value))


def resolve(value: object, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, str) and value.endswith("%"):
        scaled = int(value[:-1]) * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    return int(value)


def _without_hash(template: dict) -> dict:
    clean = copy.deepcopy(template)
    (clean.get("metadata") or {}).get("labels", {}).pop(HASH_LABEL, None)
    return clean


def _replicas(rs: dict) -> int:
    return int((rs.get("spec") or {}).get("replicas", 0))


def _revision(rs: dict) -> int:
    return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0") or 0)


def _status(rs: dict, key: str) -> int:
    return int((rs.get("status") or {}).get(key, 0))


class DeploymentController:
    kind = "Deployment"

    def __init__(self, manager: ControllerHost) -> None:
        self.cm = manager

    def replica_sets(self, deployment: dict) -> list[dict]:
        uid = deployment["metadata"]["uid"]
        owned = [
            rs
            for rs in self.cm.informer.items("ReplicaSet")
            if any(ref.get("uid") == uid for ref in rs["metadata"].get("ownerReferences") or [])
        ]
        return sorted(owned, key=lambda rs: rs["metadata"].get("creationTimestamp", ""))

    async def sync(self, deployment: dict, trace_id: str | None) -> None:
        meta = deployment["metadata"]
        steps = await db(self.cm.needs_steps)(trace_id, self.kind, meta.get("namespace", ""), meta["name"])
        if steps:
            await gate.before_step(self.cm.cluster_name, trace_id, 5)
            en, zh = texts.event_received(deployment)
            await db(record_step)(trace_id, 5, detail_en=en, detail_zh=zh)
            await gate.before_step(self.cm.cluster_name, trace_id, 6)
        plan = self.plan(deployment)
        if steps:
            en, zh = texts.rollout_decided(
                deployment, plan.new_name, plan.revision, plan.create, plan.describe()
            )
            await db(record_step)(trace_id, 6, detail_en=en, detail_zh=zh)
            self.cm.stepped.add(trace_id)
            if not plan.scales_up:
                en, zh = texts.no_new_pod("Deployment controller", -1 if plan.moves else 0)
                await db(skip_steps)(FlowTrace(pk=trace_id), range(7, 14), en, zh)
        if (deployment.get("spec") or {}).get("paused"):
            plan.moves = []
        await db(self._execute)(deployment, plan, trace_id)

    def plan(self, deployment: dict) -> Plan:
        spec = deployment.get("spec") or {}
        template = spec.get("template") or {}
        sets = self.replica_sets(deployment)
        new = next(
            (rs for rs in sets if _without_hash(rs["spec"]["template"]) == _without_hash(template)), None
        )
        old = [rs for rs in sets if rs is not new]
        old_max = max((_revision(rs) for rs in old), default=0)
        revision = _revision(new) if new is not None and _revision(new) > old_max else old_max + 1
        plan = Plan(new=new, old=old, revision=str(revision))
        plan.new_name = (
            new["metadata"]["name"] if new else f"{deployment['metadata']['name']}-{template_hash(template)}"
        )
        wanted = int(spec.get("replicas", 1))
        strategy = spec.get("strategy") or {}
        if strategy.get("type") == "Recreate":
            self._plan_recreate(plan, wanted)
        else:
            self._plan_rolling(plan, wanted, strategy.get("rollingUpdate") or {})
        return plan

    def _plan_recreate(self, plan: Plan, wanted: int) -> None:
        # upstream's oldPodsRunning: a terminating old pod still runs until its kubelet removes it
        running_old = [
            rs for rs in plan.old if _replicas(rs) or _status(rs, "replicas") or self._pods_left(rs)
        ]
        for rs in plan.old:
            if _replicas(rs):
                plan.moves.append((rs, 0))
        if running_old:
            return  # the new pods wait until every old pod is gone
        current = _replicas(plan.new) if plan.new else 0
        if plan.new is None or current != wanted:
            plan.moves.append((plan.new, wanted))

    def _pods_left(self, rs: dict) -> bool:
        terminal = ("Succeeded", "Failed")
        return any((p.get("status") or {}).get("phase") not in terminal for p in self.cm.owned_pods(rs))

    def _plan_rolling(self, plan: Plan, wanted: int, rolling: dict) -> None:
        surge = resolve(rolling.get("maxSurge", "25%"), wanted, round_up=True)
        unavailable = resolve(rolling.get("maxUnavailable", "25%"), wanted, round_up=False)
        if surge == 0 and unavailable == 0:
            unavailable = 1
        new_replicas = _replicas(plan.new) if plan.new else 0
        total = sum(_replicas(rs) for rs in plan.old) + new_replicas
        if new_replicas > wanted:
            target = wanted
        elif total < wanted + surge:
            target = new_replicas + min(wanted + surge - total, wanted - new_replicas)
        else:
            target = new_replicas
        if plan.new is None or target != new_replicas:
            plan.moves.append((plan.new, target))
        total += target - new_replicas
        new_unavailable = target - (_status(plan.new, "availableReplicas") if plan.new else 0)
        min_available = wanted - unavailable
        budget = total - min_available - max(new_unavailable, 0)
        available = sum(_status(rs, "availableReplicas") for rs in plan.old)
        available += _status(plan.new, "availableReplicas") if plan.new else 0
        budget = min(budget, available - min_available) if budget > 0 else budget
        for rs in plan.old:
            if budget <= 0:
                break
            down = min(_replicas(rs), budget)
            if down:
                plan.moves.append((rs, _replicas(rs) - down))
                budget -= down

    # -- database thread ---------------------------------------------------------------------
    def _execute(self, deployment: dict, plan: Plan, trace_id: str | None) -> None:
        actor = self.cm.actor(trace_id, "Deployment controller")
        for rs, replicas in plan.moves:
            if rs is None:
                rs = self._create_replica_set(deployment, plan, replicas, actor)
                plan.new = rs
                before = 0
            else:
                before = _replicas(rs)
                rs = self._scale(rs, replicas, deployment, plan, actor)
            if rs is None:
                continue
            verb = "up" if replicas > before else "down"
            message = f"Scaled {verb} replica set {rs['metadata']['name']} from {before} to {replicas}"
            event_recorder.record(
                self.cm.cluster,
                deployment,
                "ScalingReplicaSet",
                message,
                actor,
                component="deployment-controller",
            )
        self._update_status(deployment, plan, actor)

    def _create_replica_set(self, deployment: dict, plan: Plan, replicas: int, actor) -> dict | None:
        spec = deployment.get("spec") or {}
        template = copy.deepcopy(spec.get("template") or {})
        pod_hash = template_hash(spec.get("template") or {})
        template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = pod_hash
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[HASH_LABEL] = pod_hash
        body = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": plan.new_name,
                "namespace": deployment["metadata"].get("namespace", "default"),
                "labels": dict(template["metadata"]["labels"]),
                "annotations": self._annotations(deployment, plan.revision, replicas),
                "ownerReferences": [owner_reference(deployment)],
            },
            "spec": {
                "replicas": replicas,
                "minReadySeconds": spec.get("minReadySeconds", 0),
                "selector": selector,
                "template": template,
            },
        }
        try:
            with transaction.atomic():  # no ReplicaSet for a Deployment deleted meanwhile
                if live_owner(store.lock(self.cm.cluster), deployment) is None:
                    return None
                created = api.create(self.cm.cluster, body, actor)
        except ApiError:
            return None
        self.cm.assume(created)
        return created

    def _annotations(self, deployment: dict, revision: str, replicas: int) -> dict:
        wanted = int((deployment.get("spec") or {}).get("replicas", 1))
        rolling = ((deployment.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}
        surge = resolve(rolling.get("maxSurge", "25%"), wanted, round_up=True)
        return {
            REVISION: revision,
            "deployment.kubernetes.io/desired-replicas": str(wanted),
            "deployment.kubernetes.io/max-replicas": str(wanted + surge),
        }

    def _scale(self, rs: dict, replicas: int, deployment: dict, plan: Plan, actor) -> dict | None:
        meta = rs["metadata"]
        annotations = self._annotations(deployment, meta.get("annotations", {}).get(REVISION, "1"), replicas)
        if rs is plan.new:
            annotations[REVISION] = plan.revision
        patch = {"metadata": {"annotations": annotations}, "spec": {"replicas": replicas}}
        try:
            scaled = api.patch(
                self.cm.cluster, "ReplicaSet", meta.get("namespace"), meta["name"], patch, MERGE_PATCH, actor
            )
        except ApiError:
            return None
        self.cm.assume(scaled)
        return scaled

    def _update_status(self, deployment: dict, plan: Plan, actor) -> None:
        meta = deployment["metadata"]
        if (meta.get("annotations") or {}).get(REVISION) != plan.revision:
            # The Deployment carries its current revision, as upstream's syncRevision sets it:
            # `kubectl rollout undo` replaces /metadata/annotations and `rollout status
            # --revision` reads it.
            patch = {"metadata": {"annotations": {REVISION: plan.revision}}}
            try:
                deployment = api.patch(
                    self.cm.cluster,
                    "Deployment",
                    meta.get("namespace"),
                    meta["name"],
                    patch,
                    MERGE_PATCH,
                    actor,
                )
            except ApiError:
                return
            self.cm.assume(deployment)
        status = self.compute_status(deployment, plan)
        if status == deployment.get("status"):
            return
        body = copy.deepcopy(deployment)
        body["status"] = status
        body["metadata"].pop("resourceVersion", None)
        try:
            self.cm.assume(api.update(self.cm.cluster, body, actor, subresource="status"))
        except ApiError:
            return

    def compute_status(self, deployment: dict, plan: Plan) -> dict:
        spec = deployment.get("spec") or {}
        wanted = int(spec.get("replicas", 1))
        sets = [rs for rs in [*plan.old, plan.new] if rs is not None]
        new = plan.new
        rolling = (spec.get("strategy") or {}).get("rollingUpdate") or {}
        unavailable_budget = resolve(rolling.get("maxUnavailable", "25%"), wanted, round_up=False)
        available = sum(_status(rs, "availableReplicas") for rs in sets)
        status = {
            "observedGeneration": deployment["metadata"].get("generation", 1),
            "replicas": sum(_status(rs, "replicas") for rs in sets),
            "updatedReplicas": _status(new, "replicas") if new else 0,
            "readyReplicas": sum(_status(rs, "readyReplicas") for rs in sets),
            "availableReplicas": available,
            "unavailableReplicas": max(wanted - available, 0),
        }
        status = {k: v for k, v in status.items() if v or k in ("observedGeneration", "replicas")}
        old_pods = sum(_status(rs, "replicas") for rs in plan.old)
        complete = (
            new is not None and _status(new, "availableReplicas") == wanted == _replicas(new) and not old_pods
        )
        name = new["metadata"]["name"] if new else plan.new_name
        conditions = {c["type"]: c for c in (deployment.get("status") or {}).get("conditions") or []}
        if available >= wanted - unavailable_budget:
            avail = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        else:
            avail = ("False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
        if complete:
            progress = ("True", "NewReplicaSetAvailable", f'ReplicaSet "{name}" has successfully progressed.')
        else:
            progress = ("True", "ReplicaSetUpdated", f'ReplicaSet "{name}" is progressing.')
        status["conditions"] = [
            _condition(conditions.get("Available"), "Available", *avail),
            _condition(conditions.get("Progressing"), "Progressing", *progress),
        ]
        return status


def _condition(previous: dict | None, type_: str, status: str, reason: str, message: str) -> dict:
    if previous and (previous.get("status"), previous.get("reason"), previous.get("message")) == (
        status,
        reason,
        message,
    ):
        return previous
    now = now_rfc3339()
    transition = (
        previous.get("lastTransitionTime", now) if previous and previous.get("status") == status else now
    )
    return {
        "type": type_,
        "status": status,
        "lastUpdateTime": now,
        "lastTransitionTime": transition,
        "reason": reason,
        "message": message,
    }


class Plan:
    """What one reconcile of a Deployment will do: (ReplicaSet or None for the new one, replicas)."""

    def __init__(self, new: dict | None, old: list[dict], revision: str) -> None:
        self.new = new
        self.old = old
        self.revision = revision
        self.new_name = ""
        self.create = new is None
        self.moves: list[tuple[dict | None, int]] = []

    @property
    def scales_up(self) -> bool:
        return any(replicas > (_replicas(rs) if rs else 0) for rs, replicas in self.moves)

    def describe(self) -> list[str]:
        out = []
        for rs, replicas in self.moves:
            name = rs["metadata"]["name"] if rs else self.new_name
            before = _replicas(rs) if rs else 0
            out.append(f"{name}: {before} → {replicas}")
        return out

"""client-go's fake clientset and FakeRecorder for the Deployment controller's logic: every call
is recorded as an action, and an update returns the object it was given (as the fake tracker
does), so upstream's table tests read the actions exactly as the Go tests do."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime

from cluster.apiserver.errors import ApiError
from cluster.controllers.deployment import util
from cluster.controllers.deployment.rollout import Rollout

NO_TIMESTAMP = ""
NOW = datetime(2016, 1, 1, tzinfo=UTC)


@dataclass
class Action:
    verb: str  # create, update, delete, update-status, update-deployment
    resource: str
    obj: dict


class FakeClient:
    def __init__(self, existing: list[dict] | None = None) -> None:
        self.actions: list[Action] = []
        self.events: list[tuple[str, str, str]] = []
        self.existing = {rs["metadata"]["name"]: rs for rs in existing or []}

    def create_replica_set(self, rs: dict) -> dict:
        self.actions.append(Action("create", "replicasets", copy.deepcopy(rs)))
        if rs["metadata"]["name"] in self.existing:
            raise ApiError(
                409, "AlreadyExists", f'replicasets.apps "{rs["metadata"]["name"]}" already exists'
            )
        created = copy.deepcopy(rs)
        created["metadata"].setdefault("uid", f"uid-{rs['metadata']['name']}")
        return created

    def update_replica_set(self, rs: dict) -> dict:
        self.actions.append(Action("update", "replicasets", copy.deepcopy(rs)))
        return copy.deepcopy(rs)

    def delete_replica_set(self, rs: dict) -> None:
        self.actions.append(Action("delete", "replicasets", rs))

    def get_replica_set(self, namespace: str, name: str) -> dict | None:
        return self.existing.get(name)

    def update_deployment(self, d: dict) -> dict:
        self.actions.append(Action("update", "deployments", copy.deepcopy(d)))
        return copy.deepcopy(d)

    def update_status(self, d: dict) -> dict:
        self.actions.append(Action("update-status", "deployments", copy.deepcopy(d)))
        return copy.deepcopy(d)

    def event(self, obj: dict, type_: str, reason: str, message: str) -> None:
        self.events.append((type_, reason, message))

    def updates(self, resource: str = "replicasets") -> list[dict]:
        return [a.obj for a in self.actions if a.verb == "update" and a.resource == resource]


def controller(client: FakeClient | None = None, now: datetime = NOW) -> tuple[Rollout, FakeClient]:
    client = client or FakeClient()
    return Rollout(client, lambda: now), client


def rs(
    name: str,
    size: int,
    selector: dict | None = None,
    created: str = NO_TIMESTAMP,
    annotations: dict | None = None,
    available: int = 0,
) -> dict:
    """The tests' rs(): a ReplicaSet of `size` replicas."""
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": created}
    if annotations is not None:
        meta["annotations"] = dict(annotations)
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": meta,
        "spec": {
            "replicas": size,
            "selector": {"matchLabels": dict(selector or {})},
            "template": {"metadata": {"labels": dict(selector or {})}, "spec": {"containers": []}},
        },
        "status": {"availableReplicas": available} if available else {},
    }


def new_deployment(
    name: str,
    replicas: int,
    revision_history_limit: int | None = None,
    max_surge: object = None,
    max_unavailable: object = None,
    selector: dict | None = None,
) -> dict:
    """The tests' newDeployment(): RollingUpdate, maxSurge/maxUnavailable given (0 when not)."""
    selector = dict(selector or {"foo": "bar"})
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": selector},
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {
                "maxSurge": 0 if max_surge is None else max_surge,
                "maxUnavailable": 0 if max_unavailable is None else max_unavailable,
            },
        },
        "template": {
            "metadata": {"labels": selector},
            "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
        },
    }
    if revision_history_limit is not None:
        spec["revisionHistoryLimit"] = revision_history_limit
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": {}},
        "spec": spec,
        "status": {},
    }


def revisions(*sets: dict) -> list[str]:
    return [util.annotations(s).get(util.REVISION, "") for s in sets]

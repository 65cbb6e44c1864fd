"""The quota holds for every writer as it stands now: a teacher's change reaches the controllers
at their next write, however long their control plane has been running (no restart)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from tests.controllers.test_workloads import deployment, pods
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)


def drive() -> None:
    async_to_sync(runtime.run_until_idle)("demo")


def set_quota(client, **quota) -> None:
    answer = client.post("/clusters/demo/policy", {"quota": quota}, "application/json")
    assert answer.status_code == 200, answer.content


def test_a_quota_lowered_under_a_running_deployments_scale_up_holds_at_once(demo, teacher_client):
    set_quota(teacher_client, pods=1000, objects=2000)
    api.create(demo, deployment("nginx:1.27"), KUBECTL)
    drive()  # the control plane runs, holding the cluster it read: three pods
    assert len(pods(demo, app="web")) == 3
    api.scale(demo, "Deployment", "default", "web", 100, KUBECTL)
    set_quota(teacher_client, pods=25)
    drive()
    assert len(pods(demo, app="web")) == 25


def test_a_quota_raised_lets_the_same_controllers_go_on(demo, teacher_client):
    set_quota(teacher_client, pods=5)
    api.create(demo, deployment("nginx:1.27"), KUBECTL)
    api.scale(demo, "Deployment", "default", "web", 12, KUBECTL)
    drive()
    assert len(pods(demo, app="web")) == 5
    set_quota(teacher_client, pods=40)
    api.scale(demo, "Deployment", "default", "web", 9, KUBECTL)  # any change of the owner: a new sync
    drive()
    assert len(pods(demo, app="web")) == 9

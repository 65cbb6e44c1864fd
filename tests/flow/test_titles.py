"""Step titles name what really happened: step 4 the event etcd sent, step 6 the controller."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cluster.apiserver import service as api
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

REPO = Path(__file__).resolve().parents[2]


def titles(trace: FlowTrace, number: int) -> list[tuple[str, str]]:
    return list(trace.steps.filter(step=number).order_by("seq").values_list("title_en", "title_zh"))


@pytest.mark.django_db(transaction=True)
def test_step_4_names_the_event_type_and_step_6_the_controller_kind(demo):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    deployment = yaml.safe_load((REPO / "dashboard/examples/deploy-web.yaml").read_text())
    api.create(demo, deployment, KUBECTL)
    drive()
    rc = FlowTrace.objects.get(cluster=demo, kind="ReplicationController")
    assert titles(rc, 4) == [("etcd sends a Create event (ADDED)", "etcd 发送 Create 事件（ADDED）")]
    assert titles(rc, 6) == [
        ("The Replication Controller creates replicas", "Replication Controller 创建副本")
    ]
    deployment = FlowTrace.objects.get(cluster=demo, kind="Deployment")
    assert titles(deployment, 6)[0][0] == "The Deployment controller creates or scales its ReplicaSet"
    patch = b'{"spec": {"replicas": 2}}'
    api.patch(
        demo, "ReplicationController", "default", "nginx", patch, "application/merge-patch+json", KUBECTL
    )
    drive()
    scaled = FlowTrace.objects.filter(cluster=demo, kind="ReplicationController").order_by("-created_at")[0]
    assert scaled.pk != rc.pk
    assert titles(scaled, 4) == [
        ("etcd sends an Update event (MODIFIED)", "etcd 发送 Update 事件（MODIFIED）")
    ]

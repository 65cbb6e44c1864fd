"""Scheduling explanations built after the binding, and there whenever a reader asks."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from labs import probes
from scheduler import explanations
from scheduler.models import SchedulingAttempt
from scheduler.service import attempts
from tests.support.demo import KUBECTL

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
}


def _bind_without_explaining(plane: runtime.ControlPlane) -> None:
    """Step the components as the long-running loops do, with no lull for the explainer."""

    async def go() -> None:
        for _ in range(100):
            worked = False
            for component in plane.components:
                worked = await component.step() or worked
            if not worked:
                break
        await plane.kubelets.idle()

    async_to_sync(go)()


@pytest.mark.django_db(transaction=True)
def test_an_attempt_is_stored_with_its_binding_and_explained_when_read(demo):
    plane = runtime.ControlPlane("demo")
    try:
        _bind_without_explaining(plane)
        api.create(demo, POD, KUBECTL)
        _bind_without_explaining(plane)
        node = api.get(demo, "Pod", "default", "web")["spec"]["nodeName"]
        row = SchedulingAttempt.objects.get(cluster=demo, pod="web")
        assert (row.node, row.decision) == (node, None)  # bound; the explanation is still held

        tried = attempts(demo, "default", "web")

        decision = tried[0]["decision"]
        assert decision["selected"] == node
        assert set(decision["nodes"]) == {"master", "node1", "node2"}
        assert decision["nodes"]["master"]["firstFailure"]["plugin"] == "TaintToleration"
        assert SchedulingAttempt.objects.get(pk=row.pk).decision is not None  # stored for good
        assert plane.scheduler.explainer.pending == {}
    finally:
        async_to_sync(plane.stop)()


@pytest.mark.django_db(transaction=True)
def test_a_reader_on_another_thread_builds_the_explanation_and_the_lab_probe_sees_it(demo):
    plane = runtime.ControlPlane("demo")
    try:
        _bind_without_explaining(plane)
        api.create(demo, POD, KUBECTL)
        _bind_without_explaining(plane)
        found = {}
        reader = threading.Thread(target=lambda: found.update(probes.latest_attempt(demo, "default", "web")))
        reader.start()
        reader.join(10)
        assert found["selected"] == api.get(demo, "Pod", "default", "web")["spec"]["nodeName"]
    finally:
        async_to_sync(plane.stop)()


@pytest.mark.django_db(transaction=True)
def test_stopping_the_control_plane_writes_what_it_still_held(demo):
    plane = runtime.ControlPlane("demo")
    _bind_without_explaining(plane)
    api.create(demo, POD, KUBECTL)
    _bind_without_explaining(plane)
    async_to_sync(plane.stop)()
    assert SchedulingAttempt.objects.get(cluster=demo, pod="web").decision is not None
    # No explainer of this process holds the cluster now: a reader reads what is stored.
    explanations.ready(demo, "default", "web")

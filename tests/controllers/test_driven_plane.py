"""A control plane driven by tests or a lab's self-test belongs to one Cluster row: a cluster made
again under the same name gets a new plane, not the old row's informers."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from bench.hostile.bodies import valid
from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_cluster_made_again_under_its_name_is_driven_by_a_new_plane():
    first = create_demo("again", pace_ms=0)
    try:
        old_plane = async_to_sync(runtime.run_until_idle)("again")
        Cluster.objects.filter(pk=first.pk).delete()  # no forget(): the kept plane is stale
        second = create_demo("again", pace_ms=0)
        api.create(second, valid("Pod", "fresh"), KUBECTL)
        plane = async_to_sync(runtime.run_until_idle)("again")
        assert plane is not old_plane
        assert api.get(second, "Pod", "default", "fresh")["spec"].get("nodeName")
        assert async_to_sync(runtime.run_until_idle)("again") is plane  # same row: the same plane
    finally:
        runtime.forget("again")

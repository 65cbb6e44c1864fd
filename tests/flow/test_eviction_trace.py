"""An eviction (kubectl drain, kubectl evict) tells its own story: step 2 says the Eviction was
POSTed, and the controller's replacement runs through steps 7–13 in it."""

from __future__ import annotations

import pytest

from cluster.apiserver import eviction
from cluster.apiserver import service as api
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_evicted_replica_s_trace_says_post_eviction_then_shows_its_replacement(demo, fake_clock):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    victim = pods[0]["metadata"]["name"]
    body = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": victim, "namespace": "default"},
    }
    eviction.evict(demo, "default", victim, body, KUBECTL)
    drive()
    fake_clock.advance(2)  # nginx stops at once: its kubelet removes the pod
    drive()
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name=victim)
    assert trace.verb == "evict"
    two = trace.steps.get(step=2)
    assert f"sends POST pods/{victim}/eviction (evict) for Pod default/{victim}" in two.detail_en
    assert f"POST pods/{victim}/eviction（evict）" in two.detail_zh
    four = trace.steps.get(step=4)
    assert four.title_en == "etcd sends an Update event (MODIFIED)"  # the mark: deletionTimestamp
    steps = [(s.step, s.object_name, s.skipped) for s in trace.steps.order_by("seq") if s.step]
    assert [s for s in steps if s[1] == victim] == [(n, victim, False) for n in (1, 2, 3, 4)]
    assert [s[0] for s in steps if s[1] != victim] == list(range(7, 14))  # the replacement

"""An eviction (kubectl drain, kubectl evict) tells its own story: step 2 says the Eviction was
POSTed, the controller's replacement runs through steps 5–13 in it, and the ending says the pod
was replaced, by which pod, where."""

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
    steps = list(trace.steps.order_by("seq"))
    assert [s.step for s in steps] == [*range(1, 14), 0] and not any(s.skipped for s in steps)
    assert {s.object_name for s in steps if s.step in (1, 2, 3, 4)} == {victim}
    replacement = steps[12].object_name  # steps 7–13: the controller's new pod
    assert replacement != victim and {s.object_name for s in steps[6:13]} == {replacement}
    ending = steps[-1]
    assert ending.final and ending.ending == "completed"
    assert ending.detail_en.startswith(
        f"Pod default/{victim} was replaced: its controller's new pod {replacement} runs on {steps[12].node}"
    )

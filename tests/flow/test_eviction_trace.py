"""An eviction (kubectl drain, kubectl evict) is a story of its own: POST pods/NAME/eviction, the
PodDisruptionBudget check and the mark, the kubelet stopping the containers (Terminating), the
pod gone, then one ending ("Evicted from node2 (grace 30 s)"). The controller's replacement is
another story, of the owner, linked to the eviction by its `causes`; a replacement that cannot be
scheduled leaves the eviction's story ended all the same."""

from __future__ import annotations

import pytest

from cluster.apiserver import eviction
from cluster.apiserver import service as api
from cluster.flow.snapshot import build as build_snapshot
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def _evict(cluster, name: str) -> None:
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": "default"}}
    eviction.evict(cluster, "default", name, body, KUBECTL)


def _endings(trace: FlowTrace) -> list:
    return list(trace.steps.filter(step=0, final=True))


def test_an_eviction_is_its_own_story_and_the_replacement_another_linked_to_it(demo, fake_clock):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    victim = pods[0]["metadata"]["name"]
    node = pods[0]["spec"]["nodeName"]
    grace = pods[0]["spec"]["terminationGracePeriodSeconds"]
    _evict(demo, victim)
    drive()
    evicted = FlowTrace.objects.get(cluster=demo, kind="Pod", name=victim)
    assert evicted.verb == "evict" and evicted.finished_at is None  # nginx still stopping
    twelve = evicted.steps.get(step=12)
    assert twelve.title_en == "kubelet stops the containers" and twelve.node == node
    assert f"The kubelet on {node} sees the deletionTimestamp" in twelve.detail_en
    assert f"at most the {grace} s grace period" in twelve.detail_en
    fake_clock.advance(2)  # nginx stops at once: its kubelet removes the pod
    drive()
    evicted.refresh_from_db()
    steps = list(evicted.steps.order_by("seq"))
    assert [s.step for s in steps] == [*range(1, 14), 0]
    assert [s.step for s in steps if s.skipped] == list(range(5, 12))
    assert {s.object_name for s in steps} == {victim}  # nothing of the replacement in it
    two, three, four = steps[1], steps[2], steps[3]
    assert f"sends POST pods/{victim}/eviction (evict) for Pod default/{victim}" in two.detail_en
    assert f"POST pods/{victim}/eviction（evict）" in two.detail_zh
    assert three.title_en == "APIServer checks the budget, marks the Pod"
    assert three.detail_en.startswith("No PodDisruptionBudget selects the pod: the eviction is allowed.")
    assert four.title_en == "etcd sends an Update event (MODIFIED)"  # the mark: deletionTimestamp
    assert steps[12].title_en == "APIServer removes the Pod from etcd"
    [ending] = _endings(evicted)
    assert ending.title_en == f"Evicted from {node} (grace {grace} s)"
    assert ending.title_zh == f"已从 {node} 驱逐（宽限期 {grace} 秒）"
    assert ending.ending == "deleted" and ending.source == "kubectl"
    assert "Its controller ReplicationController nginx replaces it in a trace of its own." in ending.detail_en
    assert ending.detail_zh.startswith(f"Pod default/{victim} 已被删除：由 kubectl 发起。")
    assert evicted.finished_at is not None

    replaced = FlowTrace.objects.get(cluster=demo, verb="replace")
    assert (replaced.kind, replaced.name, replaced.causes) == ("ReplicationController", "nginx", evicted.pk)
    steps = list(replaced.steps.order_by("seq"))
    assert [s.step for s in steps if s.skipped] == [1, 2, 3, 4]
    assert f"evict Pod default/{victim}" in steps[0].detail_en
    assert [s.step for s in steps if not s.skipped] == [*range(5, 14), 0]
    new = steps[-2].object_name
    assert new != victim and new.startswith("nginx-")
    [ending] = _endings(replaced)
    assert ending.ending == "completed"
    assert ending.detail_en == (
        f"ReplicationController default/nginx replaced {victim}: its new pod {new} runs on {steps[-2].node} "
        "(its kubelet reported step 13)."
    )
    # The page learns the link from the snapshot and from each trace's first step on the socket.
    snap = {t["id"]: t for t in build_snapshot(demo)["traces"]}
    assert snap[replaced.pk]["causes"] == [evicted.pk] and snap[evicted.pk]["causes"] == []


def test_an_eviction_ends_once_even_when_its_replacement_cannot_be_scheduled(demo, fake_clock):
    drive()
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    for node in ("node1", "node2"):  # nowhere left for a replacement
        api.patch(
            demo, "Node", "", node, {"spec": {"unschedulable": True}}, "application/merge-patch+json", KUBECTL
        )
    pods, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    victim = pods[0]["metadata"]["name"]
    _evict(demo, victim)
    drive()
    fake_clock.advance(2)
    drive()
    evicted = FlowTrace.objects.get(cluster=demo, kind="Pod", name=victim)
    assert evicted.finished_at is not None and len(_endings(evicted)) == 1
    replaced = FlowTrace.objects.get(cluster=demo, verb="replace")
    assert replaced.finished_at is None  # its pod waits for a node: that story is still going
    nine = replaced.steps.get(step=9)
    assert nine.ending == "waiting"
    drive()
    evicted.refresh_from_db()
    assert len(_endings(evicted)) == 1


def test_a_bare_pod_evicted_has_its_story_too_and_its_own_trace_keeps_its_ending(demo, fake_clock):
    drive()
    api.create(demo, _bare("solo"), KUBECTL)
    drive()
    own = FlowTrace.objects.get(cluster=demo, kind="Pod", name="solo", verb="create")
    assert own.finished_at is not None
    _evict(demo, "solo")
    drive()
    fake_clock.advance(2)
    drive()
    evicted = FlowTrace.objects.get(cluster=demo, kind="Pod", name="solo", verb="evict")
    [ending] = _endings(evicted)
    assert ending.title_en.startswith("Evicted from node")
    assert "A bare pod has no controller: nothing replaces it." in evicted.steps.get(step=5).detail_en
    assert [e.ending for e in _endings(own)] == ["completed"]  # not re-ended as deleted
    assert not FlowTrace.objects.filter(cluster=demo, verb="replace").exists()


def _bare(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
    }

"""The kubelet's lane names init containers (step 12) and how they and the probes stand (step 13)."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.flow import podcontainers
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example


def _steps(demo, name: str) -> dict[int, object]:
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name=name)
    return {s.step: s for s in trace.steps.order_by("seq")}


@pytest.mark.django_db(transaction=True)
def test_steps_12_and_13_name_the_init_containers_and_the_readiness_probe(demo):
    drive()
    body = example("pod-nodename.yaml")
    body["metadata"]["name"] = "gated"
    body["spec"]["initContainers"] = [
        {"name": "wait-db", "image": "busybox:1.36", "command": ["sh", "-c", "echo ok"]},
        {"name": "log", "image": "busybox:1.36", "restartPolicy": "Always", "command": ["sleep", "3600"]},
    ]
    body["spec"]["containers"][0]["readinessProbe"] = {"tcpSocket": {"port": 80}}
    api.create(demo, body, KUBECTL)
    drive()
    steps = _steps(demo, "gated")
    assert steps[12].detail_en.endswith(
        " Init containers run first, one after another, each to completion: wait-db, log (sidecar)."
    )
    assert steps[12].detail_zh.endswith("先逐个运行 Init 容器，每个都须成功结束：wait-db, log（边车）。")
    # Step 13 is the kubelet's first report: the first init container runs, no probe has run yet.
    assert steps[13].detail_en.endswith(
        "kubelet on node1. init: wait-db running, log waiting (PodInitializing) · nginx: readiness pending."
    )
    assert steps[13].detail_zh.endswith(
        "Init 容器：wait-db 运行中，log 等待中（PodInitializing） · nginx：就绪探针 待定。"
    )


@pytest.mark.django_db(transaction=True)
def test_a_pod_without_init_containers_or_probes_keeps_its_sentences(demo):
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    steps = _steps(demo, "pod-example")
    assert steps[12].detail_en.endswith("start the containers, then reports the status back.")
    assert steps[13].detail_en.endswith("acknowledged it to the kubelet on node1.")


def test_results_read_the_reported_status():
    pod = {
        "spec": {
            "initContainers": [{"name": "check"}, {"name": "wait"}],
            "containers": [
                {"name": "web", "readinessProbe": {}, "livenessProbe": {}, "startupProbe": {}},
                {"name": "plain"},
            ],
        },
        "status": {
            "initContainerStatuses": [
                {"name": "check", "state": {"terminated": {"exitCode": 1}}},
                {"name": "wait", "state": {"waiting": {"reason": "PodInitializing"}}},
            ],
            "containerStatuses": [
                {"name": "web", "ready": True, "started": True, "restartCount": 2, "state": {"running": {}}}
            ],
        },
    }
    en, zh = podcontainers.results(pod)
    assert en == (
        " init: check ✗ exit 1, wait waiting (PodInitializing)"
        " · web: startup ✓, readiness ✓, liveness (restarts 2)."
    )
    assert zh == (
        " Init 容器：check ✗ 退出码 1，wait 等待中（PodInitializing）"
        " · web：启动探针 ✓，就绪探针 ✓，存活探针（重启 2 次）。"
    )
    pod["status"]["containerStatuses"][0].update(ready=False, started=False, restartCount=0)
    assert podcontainers.results(pod)[0].endswith("web: startup pending, readiness pending, liveness.")

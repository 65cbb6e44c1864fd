"""The scheduler's configuration per cluster (ConfigMap kube-system/kube-scheduler): profiles by
schedulerName, a change taking effect at once, a refused one kept out with a Warning Event."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from scheduler.service import attempts
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)

TWO_PROFILES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
  - schedulerName: bin-packing
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
              - {name: cpu, weight: 1}
              - {name: memory, weight: 1}
"""


def config_map(text: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "data": {"config.yaml": text},
    }


def pod(name: str, cpu: str, scheduler: str = "") -> dict:
    container = {"name": "c", "image": "nginx:1.15", "resources": {"requests": {"cpu": cpu}}}
    spec: dict = {"containers": [container]}
    if scheduler:
        spec["schedulerName"] = scheduler
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def node_of(cluster, name: str) -> str | None:
    return api.get(cluster, "Pod", "default", name)["spec"].get("nodeName")


def events(cluster, namespace: str, name: str) -> list[dict]:
    found, _ = api.list_objects(cluster, "Event", namespace)
    return [e for e in found if e["involvedObject"]["name"] == name]


def test_a_second_profile_packs_while_the_default_spreads(demo):
    drive()
    api.create(demo, config_map(TWO_PROFILES), KUBECTL)
    api.create(demo, pod("fill", "2"), KUBECTL)
    drive()
    fuller = node_of(demo, "fill")
    emptier = ({"node1", "node2"} - {fuller}).pop()
    api.create(demo, pod("packed", "500m", "bin-packing"), KUBECTL)
    api.create(demo, pod("spread", "500m"), KUBECTL)
    drive()
    assert node_of(demo, "packed") == fuller
    assert node_of(demo, "spread") == emptier
    [packed] = attempts(demo, "default", "packed")
    assert packed["decision"]["profile"] == "bin-packing"
    assert attempts(demo, "default", "spread")[0]["decision"]["profile"] == "default-scheduler"
    # Upstream's recorder of each profile reports as its schedulerName.
    scheduled = [e for e in events(demo, "default", "packed") if e["reason"] == "Scheduled"]
    assert scheduled[0]["source"]["component"] == "bin-packing"


def test_a_pod_for_a_scheduler_nobody_runs_waits_silently_until_a_profile_runs_it(demo):
    drive()
    api.create(demo, pod("orphan", "100m", "my-scheduler"), KUBECTL)
    drive()
    assert node_of(demo, "orphan") is None
    assert events(demo, "default", "orphan") == []
    assert attempts(demo, "default", "orphan") == []
    assert not api.get(demo, "Pod", "default", "orphan").get("status", {}).get("conditions")
    api.create(demo, config_map(TWO_PROFILES.replace("bin-packing", "my-scheduler")), KUBECTL)
    drive()
    assert node_of(demo, "orphan") in ("node1", "node2")


def test_an_invalid_configuration_is_refused_with_its_located_error_and_the_last_good_one_stays(demo):
    drive()
    created = api.create(demo, config_map(TWO_PROFILES), KUBECTL)
    drive()
    broken = config_map(TWO_PROFILES.replace("type: MostAllocated", "tpye: MostAllocated"))
    broken["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    api.update(demo, broken, KUBECTL)
    drive()
    [warning] = [e for e in events(demo, "kube-system", "kube-scheduler") if e["type"] == "Warning"]
    assert warning["reason"] == "InvalidConfiguration"
    assert warning["message"] == (
        "config.yaml (line 10): profiles[1].pluginConfig[0].args.scoringStrategy.tpye: unknown field; "
        "the scheduler keeps its last valid configuration"
    )
    assert warning["involvedObject"]["kind"] == "ConfigMap"
    # bin-packing still runs, from the last valid configuration.
    api.create(demo, pod("still", "100m", "bin-packing"), KUBECTL)
    drive()
    assert node_of(demo, "still") in ("node1", "node2")


def test_the_configured_backoff_is_the_queue_s(demo):
    drive()
    api.create(demo, config_map("podInitialBackoffSeconds: 3\npodMaxBackoffSeconds: 20\n"), KUBECTL)
    drive()
    api.create(demo, pod("huge", "64"), KUBECTL)
    drive()
    [attempt] = attempts(demo, "default", "huge")
    assert attempt["queue"]["backoffSeconds"] == 3.0

"""ResourceQuota and LimitRange as kube-apiserver's admission: refusals in upstream's words, the
quota controller's status, scopes, object counts, LimitRanger's defaults and constraints, and
controllers held to a quota as it stands."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from tests.controllers.test_workloads import deployment, pods
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)


def quota(name: str, hard: dict, namespace: str = "default", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"hard": hard, **spec},
    }


def pod(name: str, resources: dict | None = None, **spec) -> dict:
    container = {"name": "app", "image": "nginx:1.27"}
    if resources is not None:
        container["resources"] = resources
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


def limit_range(name: str, *items: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"limits": list(items)},
    }


def refused(demo, body: dict) -> str:
    with pytest.raises(ApiError) as caught:
        api.create(demo, body, KUBECTL)
    assert caught.value.code == 403, caught.value.message
    return caught.value.message


def stored_quota(demo, name: str) -> dict:
    return api.get(demo, "ResourceQuota", "default", name)


def test_a_second_pod_is_refused_in_the_quotas_words_and_status_counts_the_first(demo):
    api.create(demo, quota("q", {"pods": "1"}), KUBECTL)
    api.create(demo, pod("a"), KUBECTL)
    message = refused(demo, pod("b"))
    assert message == (
        'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1'
    )
    drive()
    assert stored_quota(demo, "q")["status"] == {"hard": {"pods": "1"}, "used": {"pods": "1"}}
    api.delete(demo, "Pod", "default", "a", KUBECTL, grace_period=0)
    drive()
    assert stored_quota(demo, "q")["status"]["used"] == {"pods": "0"}


def test_compute_quotas_sum_requests_and_limits_and_name_what_is_missing(demo):
    hard = {"requests.cpu": "1", "requests.memory": "1Gi", "limits.cpu": "2", "limits.memory": "2Gi"}
    api.create(demo, quota("compute", hard), KUBECTL)
    message = refused(demo, pod("bare"))
    assert message == (
        'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: app; '
        "limits.memory for: app; requests.cpu for: app; requests.memory for: app"
    )
    sized = {"requests": {"cpu": "600m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
    api.create(demo, pod("one", sized), KUBECTL)
    message = refused(demo, pod("two", sized))
    assert message == (
        'pods "two" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, '
        "used: requests.cpu=600m, limited: requests.cpu=1"
    )
    drive()
    assert stored_quota(demo, "compute")["status"]["used"] == {
        "limits.cpu": "1",
        "limits.memory": "1Gi",
        "requests.cpu": "600m",
        "requests.memory": "512Mi",
    }


def test_object_count_quotas_count_their_kind(demo):
    api.create(demo, quota("objects", {"count/configmaps": "1", "configmaps": "5"}), KUBECTL)
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "default"}}
    api.create(demo, {**config, "metadata": {**config["metadata"], "name": "one"}}, KUBECTL)
    message = refused(demo, {**config, "metadata": {**config["metadata"], "name": "two"}})
    assert message == (
        'configmaps "two" is forbidden: exceeded quota: objects, requested: count/configmaps=1, '
        "used: count/configmaps=1, limited: count/configmaps=1"
    )
    api.create(demo, quota("deploys", {"count/deployments.apps": "0"}), KUBECTL)
    message = refused(demo, deployment("nginx:1.27"))
    assert message.startswith('deployments.apps "web" is forbidden: exceeded quota: deploys, ')


def test_scopes_choose_the_pods_a_quota_counts(demo):
    api.create(demo, quota("best-effort", {"pods": "1"}, scopes=["BestEffort"]), KUBECTL)
    api.create(demo, quota("terminating", {"pods": "1"}, scopes=["Terminating"]), KUBECTL)
    api.create(demo, pod("free"), KUBECTL)
    assert "exceeded quota: best-effort" in refused(demo, pod("free2"))
    sized = {"requests": {"cpu": "100m"}}
    api.create(demo, pod("sized", sized), KUBECTL)  # NotBestEffort: the quota does not count it
    api.create(demo, pod("deadline", sized, activeDeadlineSeconds=60), KUBECTL)
    assert "exceeded quota: terminating" in refused(demo, pod("deadline2", sized, activeDeadlineSeconds=60))
    selector = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}
    api.create(demo, quota("high", {"pods": "0"}, scopeSelector=selector), KUBECTL)
    api.create(demo, pod("normal", sized), KUBECTL)  # no priority class: not in the scope
    drive()
    assert stored_quota(demo, "best-effort")["status"]["used"] == {"pods": "1"}
    assert stored_quota(demo, "terminating")["status"]["used"] == {"pods": "1"}


def test_conflicting_scopes_are_invalid(demo):
    with pytest.raises(ApiError) as caught:
        api.create(demo, quota("bad", {"pods": "1"}, scopes=["BestEffort", "NotBestEffort"]), KUBECTL)
    assert caught.value.code == 422
    shown = '[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}'
    assert f"spec.scopes: Invalid value: {shown}: conflicting scopes" in caught.value.message


def test_a_deployment_scaled_past_the_quota_gets_what_it_allows_and_failed_create_events(demo):
    api.create(demo, quota("pods", {"pods": "5"}), KUBECTL)
    api.create(demo, deployment("nginx:1.27"), KUBECTL)
    api.scale(demo, "Deployment", "default", "web", 100, KUBECTL)
    drive()
    assert len(pods(demo, app="web")) == 5
    events, _ = api.list_objects(demo, "Event", "default")
    failed = [e for e in events if e.get("reason") == "FailedCreate"]
    assert failed and failed[0]["involvedObject"]["kind"] == "ReplicaSet"
    assert "exceeded quota: pods, requested: pods=1, used: pods=5, limited: pods=5" in failed[0]["message"]
    assert stored_quota(demo, "pods")["status"]["used"] == {"pods": "5"}


def test_a_limit_range_defaults_a_new_pods_requests_and_limits(demo):
    item = {
        "type": "Container",
        "default": {"cpu": "500m", "memory": "256Mi"},
        "defaultRequest": {"cpu": "250m"},
    }
    api.create(demo, limit_range("defaults", item), KUBECTL)
    stored = api.get(demo, "LimitRange", "default", "defaults")
    assert stored["spec"]["limits"][0]["defaultRequest"] == {"cpu": "250m", "memory": "256Mi"}
    created = api.create(demo, pod("p"), KUBECTL)
    assert created["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "256Mi"},
        "requests": {"cpu": "250m", "memory": "256Mi"},
    }
    assert created["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"
    )
    # Limits alone: requests were defaulted to them before LimitRanger looked, as upstream.
    created = api.create(demo, pod("q", {"limits": {"cpu": "400m"}}), KUBECTL)
    assert created["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "400m", "memory": "256Mi"}


def test_limit_range_min_max_and_ratio_are_upstreams_words(demo):
    item = {
        "type": "Container",
        "min": {"cpu": "100m"},
        "max": {"cpu": "1", "memory": "1Gi"},
        "maxLimitRequestRatio": {"cpu": "2"},
    }
    api.create(demo, limit_range("bounds", item), KUBECTL)
    message = refused(demo, pod("big", {"limits": {"cpu": "2"}, "requests": {"cpu": "200m"}}))
    assert message == (
        'pods "big" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, '
        "cpu max limit to request ratio per Container is 2, but provided ratio is 10.000000]"
    )
    message = refused(demo, pod("small", {"requests": {"cpu": "50m"}, "limits": {"cpu": "80m"}}))
    assert message == 'pods "small" is forbidden: minimum cpu usage per Container is 100m, but request is 50m'
    api.create(demo, pod("fits", {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}), KUBECTL)


def test_limit_range_validation(demo):
    item = {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}
    with pytest.raises(ApiError) as caught:
        api.create(demo, limit_range("bad", item), KUBECTL)
    assert caught.value.code == 422
    assert 'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1' in (
        caught.value.message
    )
    pod_item = {"type": "Pod", "default": {"cpu": "1"}}
    with pytest.raises(ApiError) as caught:
        api.create(demo, limit_range("bad", pod_item), KUBECTL)
    forbidden = "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"
    assert forbidden in caught.value.message


def test_quota_table_and_describe(demo, teacher_client):
    api.create(demo, quota("q", {"pods": "4", "limits.cpu": "2", "requests.memory": "1Gi"}), KUBECTL)
    drive()
    answer = teacher_client.get(
        "/clusters/demo/api/v1/namespaces/default/resourcequotas",
        HTTP_ACCEPT="application/json;as=Table;v=v1;g=meta.k8s.io",
    )
    row = json.loads(answer.content)["rows"][0]["cells"]
    assert row[0] == "q" and row[2:] == ["pods: 0/4, requests.memory: 0/1Gi", "limits.cpu: 0/2"]


def claim(name: str, storage: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}},
    }


def test_claims_count_their_storage_and_are_held_to_the_limit_range(demo):
    class_quota = "standard.storageclass.storage.k8s.io/requests.storage"
    api.create(demo, quota("storage", {"requests.storage": "5Gi", class_quota: "3Gi"}), KUBECTL)
    api.create(demo, claim("one", "2Gi"), KUBECTL)  # the default class: standard
    message = refused(demo, claim("two", "2Gi"))
    assert message == (
        f'persistentvolumeclaims "two" is forbidden: exceeded quota: storage, requested: {class_quota}=2Gi, '
        f"used: {class_quota}=2Gi, limited: {class_quota}=3Gi"
    )
    item = {"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}}
    api.create(demo, limit_range("storage", item), KUBECTL)
    message = refused(demo, claim("big", "2Gi"))
    assert message == (
        'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, '
        "but request is 2Gi"
    )
    drive()
    assert stored_quota(demo, "storage")["status"]["used"] == {"requests.storage": "2Gi", class_quota: "2Gi"}

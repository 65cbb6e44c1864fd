"""PodDisruptionBudgets: the disruption controller's arithmetic, and evictions that spend it."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.models import FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)
PDBS = "/clusters/demo/apis/policy/v1/namespaces/default/poddisruptionbudgets"
PODS = "/clusters/demo/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."


def budget(name: str, **spec) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": "nginx"}}, **spec},
    }


def evict(client, name: str, body: dict | None = None):
    eviction = body or {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}}
    return client.post(f"{PODS}/{name}/eviction", json.dumps(eviction), content_type="application/json")


def nginx_pods(demo) -> list[dict]:
    items, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    return items


@pytest.fixture
def rc(demo):
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)  # 3 nginx replicas
    drive()
    return demo


@pytest.mark.parametrize(
    ("spec", "expected", "desired", "allowed"),
    [
        ({"minAvailable": 2}, 3, 2, 1),
        ({"minAvailable": 3}, 3, 3, 0),
        ({"minAvailable": "50%"}, 3, 2, 1),  # ceil(1.5) of the RC's 3 replicas
        ({"maxUnavailable": 1}, 3, 2, 1),
        ({"maxUnavailable": "50%"}, 3, 1, 2),
        ({"maxUnavailable": "100%"}, 3, 0, 3),
    ],
)
def test_the_disruption_controller_keeps_the_budgets_status(
    rc, teacher_client, spec, expected, desired, allowed
):
    created = teacher_client.post(PDBS, json.dumps(budget("web", **spec)), content_type="application/json")
    assert created.status_code == 201 and created.json()["metadata"]["generation"] == 1
    drive()
    status = api.get(rc, "PodDisruptionBudget", "default", "web")["status"]
    assert (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"]) == (
        expected,
        desired,
        3,
    )
    assert status["disruptionsAllowed"] == allowed and status["observedGeneration"] == 1
    (condition,) = status["conditions"]
    assert condition["type"] == "DisruptionAllowed"
    assert (condition["status"], condition["reason"]) == (
        ("True", "SufficientPods") if allowed else ("False", "InsufficientPods")
    )
    table = teacher_client.get(PDBS, headers={"Accept": TABLE}).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name",
        "Min Available",
        "Max Unavailable",
        "Allowed Disruptions",
        "Age",
    ]
    cells = table["rows"][0]["cells"]
    assert cells[:4] == [
        "web",
        str(spec.get("minAvailable", "N/A")),
        str(spec.get("maxUnavailable", "N/A")),
        allowed,
    ]


def test_an_eviction_spends_the_budget_then_answers_429(rc, teacher_client, fake_clock):
    api.create(rc, budget("web", minAvailable=2), KUBECTL)
    drive()
    first, second, _ = (p["metadata"]["name"] for p in nginx_pods(rc))
    answer = evict(teacher_client, first)
    assert answer.status_code == 201
    assert answer.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "code": 201,
    }
    evicted = api.get(rc, "Pod", "default", first)
    assert evicted["metadata"]["deletionGracePeriodSeconds"] == 30
    (target,) = [c for c in evicted["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert (target["reason"], target["message"]) == ("EvictionByEvictionAPI", "Eviction API: evicting")
    status = api.get(rc, "PodDisruptionBudget", "default", "web")["status"]
    assert status["disruptionsAllowed"] == 0 and first in status["disruptedPods"]
    # At once, before the controller looked again: no disruption left, and the budget's status
    # still counts the 3 healthy pods it last saw (the API server reads the status as it is).
    refused = evict(teacher_client, second)
    assert refused.status_code == 429
    assert refused.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": MESSAGE,
        "reason": "TooManyRequests",
        "details": {
            "causes": [
                {
                    "reason": "DisruptionBudget",
                    "message": "The disruption budget web needs 2 healthy pods and has 3 currently",
                }
            ]
        },
        "code": 429,
    }
    assert not api.get(rc, "Pod", "default", second)["metadata"].get("deletionTimestamp")
    events, _ = api.list_objects(rc, "Event", "default", field_selector=f"involvedObject.name={first}")
    assert "EvictionByEvictionAPI" in {e["reason"] for e in events}
    # The RC's replacement runs and the evicted pod goes: the budget allows one disruption again.
    fake_clock.advance(1)
    drive()
    # The eviction is a story of its own, whose step 3 is the budget's check; the replacement
    # (created, scheduled, started) is the controller's story, linked to it.
    trace = FlowTrace.objects.get(cluster=rc, kind="Pod", name=first, verb="evict")
    three = trace.steps.get(step=3)
    assert three.detail_en.startswith("PodDisruptionBudget web allows the disruption (0 more allowed now;")
    replaced = FlowTrace.objects.get(cluster=rc, verb="replace")
    assert replaced.causes == trace.pk
    steps = list(replaced.steps.filter(skipped=False).order_by("seq").values_list("step", flat=True))
    assert steps == [*range(5, 14), 0]
    status = api.get(rc, "PodDisruptionBudget", "default", "web")["status"]
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (
        3,
        1,
    ) and "disruptedPods" not in status
    assert evict(teacher_client, second).status_code == 201


def test_eviction_hostile_cases(rc, teacher_client):
    missing = evict(teacher_client, "nope")
    assert missing.status_code == 404 and missing.json()["message"] == 'pods "nope" not found'
    name = nginx_pods(rc)[0]["metadata"]["name"]
    wrong = evict(
        teacher_client, name, {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "x"}}
    )
    assert (
        wrong.status_code == 400
        and wrong.json()["message"] == "name in URL does not match name in Eviction object"
    )
    typed = evict(
        teacher_client,
        name,
        {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": name},
            "deleteOptions": {"gracePeriodSeconds": "1"},
        },
    )
    assert typed.status_code == 400 and typed.json()["kind"] == "Status"
    api.create(rc, budget("a", minAvailable=1), KUBECTL)
    api.create(rc, budget("b", maxUnavailable=1), KUBECTL)
    drive()
    two = evict(teacher_client, name)
    assert two.status_code == 500 and two.json()["message"].startswith(
        "This pod has more than one PodDisruptionBudget"
    )
    assert not api.get(rc, "Pod", "default", name)["metadata"].get("deletionTimestamp")
    # A budget the controller has not seen since its change: "still being processed".
    api.delete(rc, "PodDisruptionBudget", "default", "b", KUBECTL)
    current = api.get(rc, "PodDisruptionBudget", "default", "a")
    current["spec"]["minAvailable"] = 0
    api.update(rc, current, KUBECTL)
    stale = evict(teacher_client, name)
    assert stale.status_code == 429 and stale["Retry-After"] == "10"
    assert (
        stale.json()["details"]["causes"][0]["message"]
        == "The disruption budget a is still being processed by the server."
    )


def test_budget_validation(demo, teacher_client):
    both = budget("x", minAvailable=1, maxUnavailable=1)
    answer = teacher_client.post(PDBS, json.dumps(both), content_type="application/json")
    assert (
        answer.status_code == 422
        and "minAvailable and maxUnavailable cannot be both set" in answer.json()["message"]
    )
    answer = teacher_client.post(
        PDBS, json.dumps(budget("x", minAvailable="150%")), content_type="application/json"
    )
    assert answer.status_code == 422 and "spec.minAvailable" in answer.json()["message"]
    assert "must not be greater than 100%" in answer.json()["message"]
    answer = teacher_client.post(
        PDBS, json.dumps(budget("x", maxUnavailable=-1)), content_type="application/json"
    )
    assert answer.json()["message"] == (
        'PodDisruptionBudget.policy "x" is invalid: spec.maxUnavailable: Invalid value: -1: '
        "must be greater than or equal to 0"
    )
    answer = teacher_client.post(
        PDBS, json.dumps(budget("x", minAvailable=True)), content_type="application/json"
    )
    assert answer.status_code == 400


def test_an_eviction_with_an_unknown_propagation_policy_is_invalid(rc, teacher_client):
    name = nginx_pods(rc)[0]["metadata"]["name"]
    body = {
        "apiVersion": "policy/v1beta1",  # the older shape is read the same
        "kind": "Eviction",
        "metadata": {"name": name},
        "deleteOptions": {"propagationPolicy": "Sideways"},
    }
    answer = evict(teacher_client, name, body)
    assert answer.status_code == 422 and answer.json()["details"]["causes"][0]["field"] == "propagationPolicy"
    assert not api.get(rc, "Pod", "default", name)["metadata"].get("deletionTimestamp")

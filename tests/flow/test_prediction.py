"""The prediction round over HTTP: the teacher arms it, the class guesses, the round closes at step
9 of the first pod's trace after arming with the scheduler's decision, and hostile input is refused
with a Status that says why, leaving the round as it was."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from cluster.apiserver import service as api
from cluster.flow.predictionanswer import deciding
from cluster.models import FlowTrace, PredictionGuess, PredictionRound
from tests.support.auth import teacher_client
from tests.support.demo import KUBECTL, drive, example
from tests.ws.messages import SCHEMAS, problems
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db(transaction=True)
JSON = "application/json"


def student() -> tuple[Client, dict]:
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/clusters/demo/")
    return browser, {"X-CSRFToken": page.cookies["csrftoken"].value}


def pod(name: str) -> dict:
    body = example("pod-nodename.yaml")
    body["metadata"]["name"] = name
    del body["spec"]["nodeName"]  # the scheduler decides
    return body


def vote(browser, csrf, node, plugin=None, **extra):
    body = {"node": node, **({"plugin": plugin} if plugin is not None else {}), **extra}
    return browser.post("/clusters/demo/prediction/guess", body, JSON, headers=csrf)


def test_a_round_closes_at_step_9_with_the_decision_and_the_class_against_it(demo, client):
    drive()
    before = api.create(demo, pod("before"), KUBECTL)  # a trace from before arming does not count
    drive()
    armed = client.post("/clusters/demo/prediction", {"ask_plugin": True}, JSON)
    assert armed.status_code == 201
    state = armed.json()["round"]
    assert (state["state"], state["nodes"], state["votes"], state["tally"]) == (
        "open",
        ["master", "node1", "node2"],
        0,
        None,
    )
    assert "NodeResourcesFit" in state["plugins"] and "ImageLocality" in state["plugins"]
    students = [student() for _ in range(3)]
    for (browser, csrf), node in zip(students, ["node1", "node2", "master"], strict=True):
        answer = vote(browser, csrf, node, "TaintToleration", round=state["id"])
        assert answer.status_code == 200, answer.content
        assert answer.json()["mine"] == {"node": node, "plugin": "TaintToleration"}
    changed = vote(*students[2], "node1", "ImageLocality")  # changeable until it closes
    assert changed.json()["round"]["votes"] == 3 and changed.json()["round"]["answer"] is None
    assert PredictionGuess.objects.count() == 3
    api.create(demo, pod("guessed"), KUBECTL)
    drive()
    after = Client().get("/clusters/demo/prediction").json()["round"]
    trace = FlowTrace.objects.get(cluster=demo, name="guessed")
    answer = after["answer"]
    node = api.get(demo, "Pod", "default", "guessed")["spec"]["nodeName"]
    assert after["state"] == "closed" and answer["trace"] == trace.pk and answer["pod"] == "guessed"
    assert answer["node"] == node and answer["node"] != "master"  # the control-plane taint
    assert answer["explanation"]["en"].endswith(f"It picks {node}.")
    assert answer["explanation"]["zh"].endswith(f"选中 {node}。")
    assert answer["deciding"]["kind"] in ("score", "tie")
    assert after["tally"]["nodes"] == {"master": 0, "node1": 2, "node2": 1}
    assert after["tally"]["right"] == (2 if node == "node1" else 1)
    assert before["metadata"]["name"] == "before"
    late = vote(*students[0], "node2")
    assert late.status_code == 409 and late.json()["message"] == (
        "the prediction round is closed: the scheduler has decided"
    )
    assert PredictionGuess.objects.get(voter__startswith="session:", node="node2").plugin == "TaintToleration"
    snapshot = Client().get("/clusters/demo/snapshot").json()
    assert snapshot["prediction"]["id"] == after["id"] and snapshot["prediction"]["state"] == "closed"


def test_only_the_teacher_arms_or_cancels_and_bad_guesses_are_refused(demo, client):
    browser, csrf = student()
    refused = browser.post("/clusters/demo/prediction", {}, JSON, headers=csrf)
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        'forbidden: User "system:anonymous" cannot post path "/clusters/demo/prediction"'
    )
    assert browser.delete("/clusters/demo/prediction", headers=csrf).status_code == 403
    assert PredictionRound.objects.count() == 0
    none = vote(browser, csrf, "node1")
    assert none.status_code == 404 and none.json()["kind"] == "Status"
    assert client.post("/clusters/demo/prediction", {"ask_plugin": "yes"}, JSON).status_code == 400
    state = client.post("/clusters/demo/prediction", {}, JSON).json()["round"]
    unknown = vote(browser, csrf, "node9")
    assert unknown.status_code == 422
    assert unknown.json()["message"] == (
        'PredictionGuess "guess" is invalid: node: Unsupported value: "node9": supported values: '
        '"master", "node1", "node2"'
    )
    assert unknown.json()["details"]["causes"] == [
        {
            "reason": "FieldValueNotSupported",
            "message": unknown.json()["message"].split("node: ")[1],
            "field": "node",
        }
    ]
    plugin = vote(browser, csrf, "node1", "NodeResourcesFit")
    assert (
        plugin.status_code == 422
        and "this round does not ask which plugin decides" in plugin.json()["message"]
    )
    assert vote(browser, csrf, "node1", round=state["id"] + 1).status_code == 404
    assert browser.post("/clusters/demo/prediction/guess", "[", JSON, headers=csrf).status_code == 400
    assert (
        browser.post("/clusters/demo/prediction/guess", {"node": "node1"}, JSON).status_code == 403
    )  # no CSRF
    assert PredictionGuess.objects.count() == 0
    assert vote(browser, csrf, "node1").status_code == 200
    cancelled = client.delete("/clusters/demo/prediction")
    assert cancelled.status_code == 200 and cancelled.json()["round"]["state"] == "cancelled"
    after = vote(browser, csrf, "node2")
    assert after.status_code == 409 and after.json()["message"] == "the prediction round is cancelled"
    assert client.delete("/clusters/demo/prediction").status_code == 409
    # A new round replaces the old one, and its guesses.
    fresh = client.post("/clusters/demo/prediction", {}, JSON).json()["round"]
    assert fresh["id"] != state["id"] and fresh["votes"] == 0 and PredictionGuess.objects.count() == 0


def test_a_vote_flood_is_limited_per_voter_with_retry_after(demo, client):
    client.post("/clusters/demo/prediction", {}, JSON)
    browser, csrf = student()
    codes = [vote(browser, csrf, "node1").status_code for _ in range(12)]
    assert codes[:10] == [200] * 10 and codes[10:] == [429, 429]
    limited = vote(browser, csrf, "node2")
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert PredictionGuess.objects.get().node == "node1"
    assert vote(*student(), "node2").status_code == 200  # another browser still votes


def test_the_deciding_plugin_is_the_one_that_gave_the_winner_its_lead():
    def node(total, scores, failure=None):
        return {
            "total": total,
            "firstFailure": failure,
            "scores": {name: {"weighted": value} for name, value in scores.items()},
        }

    plugins = [{"name": "ImageLocality"}, {"name": "NodeResourcesFit"}]
    taint = {"plugin": "TaintToleration", "reasons": ["node(s) had untolerated taint"]}
    decision = {
        "selected": "node2",
        "scorePlugins": plugins,
        "nodes": {
            "master": node(None, {}, taint),
            "node1": node(150, {"ImageLocality": 0, "NodeResourcesFit": 150}),
            "node2": node(230, {"ImageLocality": 90, "NodeResourcesFit": 140}),
        },
    }
    found = deciding(decision)
    assert found["kind"] == "score" and found["plugins"] == ["ImageLocality"]
    assert found["runner_up"] == {"node": "node1", "total": 150}
    assert found["scores"] == {"ImageLocality": {"winner": 90, "runner_up": 0}}
    alone = {**decision, "nodes": {**decision["nodes"], "node1": node(None, {}, taint)}}
    assert deciding(alone) == {
        "kind": "filter",
        "plugins": ["TaintToleration"],
        "filtered": {"master": taint, "node1": taint},
    }
    nowhere = {
        **alone,
        "selected": "",
        "message": "0/3 nodes are available",
        "nodes": {"master": node(None, {}, taint)},
    }
    assert deciding(nowhere)["kind"] == "none" and deciding(nowhere)["message"] == "0/3 nodes are available"


def test_cordoned_nodes_are_no_choice_and_with_none_left_arming_is_refused(demo, client):
    patch = {"spec": {"unschedulable": True}}
    api.patch(demo, "Node", "", "node2", patch, "application/merge-patch+json", KUBECTL)
    assert client.post("/clusters/demo/prediction", {}, JSON).json()["round"]["nodes"] == ["master", "node1"]
    for name in ("master", "node1"):
        api.patch(demo, "Node", "", name, patch, "application/merge-patch+json", KUBECTL)
    refused = client.post("/clusters/demo/prediction", {}, JSON)
    assert refused.status_code == 409 and refused.json()["message"] == (
        "no node is schedulable: uncordon one before asking the class"
    )
    assert Client().get("/clusters/demo/prediction").json()["round"]["nodes"] == ["master", "node1"]


@pytest.mark.django_db(transaction=True)
async def test_every_open_socket_gets_the_round_and_its_reveal_and_a_late_one_its_snapshot(demo):
    communicator, snapshot = await connect()
    try:
        assert snapshot["prediction"] is None
        await drain(communicator)
        teacher = teacher_client()
        await database_sync_to_async(drive)()
        armed = await database_sync_to_async(teacher.post)("/clusters/demo/prediction", "{}", JSON)
        round_id = armed.json()["round"]["id"]
        (message,) = [m for m in await drain(communicator) if m["type"] == "prediction"]
        assert message["round"]["state"] == "open" and message["round"]["id"] == round_id
        assert problems(message, SCHEMAS["prediction"]) == []
        browser, csrf = await database_sync_to_async(student)()
        await database_sync_to_async(vote)(browser, csrf, "node1")
        (counted,) = [m for m in await drain(communicator) if m["type"] == "prediction"]
        assert counted["round"]["votes"] == 1 and counted["round"]["tally"] is None
        again, late = await connect()
        await again.disconnect()
        assert late["prediction"]["id"] == round_id and problems(late, SCHEMAS["snapshot"]) == []
        await database_sync_to_async(api.create)(demo, pod("watched"), KUBECTL)
        await database_sync_to_async(drive)()
        revealed = [m["round"] for m in await drain(communicator) if m["type"] == "prediction"]
        assert revealed and revealed[-1]["state"] == "closed" and revealed[-1]["answer"]["pod"] == "watched"
        assert revealed[-1]["answer"]["deciding"] is not None
        assert problems({"type": "prediction", "round": revealed[-1]}, SCHEMAS["prediction"]) == []
    finally:
        await communicator.disconnect()


def test_resetting_the_demo_takes_the_round_off_every_page(demo, client):
    from cluster.apiserver.actor import Actor
    from cluster.controlplane.demo import reset_demo

    drive()
    assert client.post("/clusters/demo/prediction", {"ask_plugin": False}, JSON).status_code == 201
    assert client.get("/clusters/demo/prediction").json()["round"]["state"] == "open"
    reset_demo(demo, Actor("api", "test reset"))
    assert client.get("/clusters/demo/prediction").json()["round"] is None
    assert not PredictionRound.objects.filter(cluster=demo).exists()

"""POST /clusters/<c>/scheduling/what-if: the explanation for an edited copy of a pod, of nodes or of
the profile, answered as the Scheduler panel's explanation JSON, with nothing written."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from cluster.apiserver import service as api
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/clusters/demo/scheduling/what-if"


def pod(**spec) -> dict:
    container = {"name": "c", "image": "nginx:1.15", "resources": {"requests": {"cpu": "500m"}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


def ask(client, body, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body)
    return client.post(URL, data=data, content_type="application/json")


def test_an_edited_node_changes_the_answer_and_nothing_is_written(demo, client):
    drive()
    revision = api.current_revision(demo)
    plain = ask(client, {"pod": pod(nodeSelector={"disk": "ssd"})}).json()
    assert plain["selected"] is None and plain["profile"] == "default-scheduler"
    assert "didn't match Pod's node affinity/selector" in plain["message"]
    labels = {"kubernetes.io/hostname": "node2", "disk": "ssd"}
    edited = ask(
        client, {"pod": pod(nodeSelector={"disk": "ssd"}), "nodes": {"node2": {"labels": labels}}}
    ).json()
    assert edited["selected"] == "node2" and edited["feasibleNodes"] == ["node2"]
    assert edited["nodes"]["node1"]["firstFailure"]["plugin"] == "NodeAffinity"
    assert edited["whatIf"]["nodes"] == ["node2"] and edited["whatIf"]["revision"] == revision
    # Nothing was written: no pod, the node as it was, the revision where it was.
    assert api.current_revision(demo) == revision
    assert "disk" not in api.get(demo, "Node", "", "node2")["metadata"]["labels"]
    with pytest.raises(api.ApiError):
        api.get(demo, "Pod", "default", "web")


def test_capacity_taints_and_a_profile_override(demo, client):
    drive()
    api.create(demo, {**pod(), "metadata": {"name": "fill", "namespace": "default"}}, KUBECTL)
    drive()
    fuller = api.get(demo, "Pod", "default", "fill")["spec"]["nodeName"]
    spread = ask(client, {"pod": pod()}).json()
    assert spread["selected"] != fuller
    strategy = {"scoringStrategy": {"type": "MostAllocated"}}
    packed = ask(
        client, {"pod": pod(), "profile": {"pluginConfig": [{"name": "NodeResourcesFit", "args": strategy}]}}
    )
    assert packed.json()["selected"] == fuller and packed.json()["whatIf"]["profileOverride"] is True
    taint = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    tainted = ask(client, {"pod": pod(), "nodes": {n: {"taints": taint} for n in ("node1", "node2")}}).json()
    assert tainted["selected"] is None
    assert "2 node(s) had untolerated taint {dedicated: x}" in tainted["message"]
    small = ask(client, {"pod": pod(), "nodes": {"node1": {"capacity": {"cpu": "100m"}}}}).json()
    assert small["nodes"]["node1"]["filters"]["NodeResourcesFit"]["reasons"] == ["Insufficient cpu"]


def test_a_stored_pod_asked_about_again_does_not_count_against_itself(demo, client):
    drive()
    api.create(demo, pod(), KUBECTL)
    drive()
    stored = api.get(demo, "Pod", "default", "web")
    copy = {**stored, "spec": {k: v for k, v in stored["spec"].items() if k != "nodeName"}}
    answer = ask(client, {"pod": copy}).json()
    assert answer["selected"] == stored["spec"]["nodeName"]


@pytest.mark.parametrize(
    ("body", "code", "text"),
    [
        ({"pod": pod(), "nodes": {"node9": {}}}, 422, 'nodes.node9: Not found: "node9"'),
        ({"pod": pod(), "nodes": {"node1": {"taints": [{"key": "a", "effect": "Sometimes"}]}}}, 422,
         'spec.taints[0].effect: Unsupported value: "Sometimes"'),
        ({"pod": pod(), "nodes": {"node1": {"capacity": {"cpu": "lots"}}}}, 422,
         'nodes.node1.capacity.cpu: Invalid value: "lots": must be a quantity'),
        ({"pod": pod(), "nodes": {"node1": {"labels": {"bad key!": "x"}}}}, 422, "metadata.labels"),
        ({"pod": pod(schedulerName="nobody")}, 422, 'schedulerName: Not found: "nobody"'),
        ({"pod": pod(), "profile": {"plugins": {"score": {"enabled": [{"name": "Nope"}]}}}}, 422,
         "profile.plugins.score.enabled[0].name: unknown plugin 'Nope'"),
        ({"pod": {**pod(), "spec": {"containers": []}}}, 422, "spec.containers: Required value"),
        ({}, 422, "pod: Required value"),
        ({"pod": pod(), "write": True}, 422, 'write: Unsupported value: "write"'),
        ([], 400, "the request body must be a JSON object"),
    ],
)  # fmt: skip
def test_bad_questions_get_a_located_status_and_change_nothing(demo, client, body, code, text):
    drive()
    revision = api.current_revision(demo)
    answered = ask(client, body)
    assert answered.status_code == code
    status = answered.json()
    assert status["kind"] == "Status" and text in status["message"]
    assert api.current_revision(demo) == revision


def test_not_json_too_large_and_get(demo, client):
    assert ask(client, None, raw=b"{nope").status_code == 400
    huge = json.dumps({"pod": pod(), "nodes": {"node1": {"labels": {"a": "b" * 63}}}, "pad": "x" * 300_000})
    assert ask(client, None, raw=huge.encode()).status_code == 413
    assert client.get(URL).status_code == 405


def test_read_access_is_enough(demo):
    drive()
    anonymous = Client()
    answered = ask(anonymous, {"pod": pod()})
    assert answered.status_code == 200 and answered.json()["selected"] in ("node1", "node2")
    assert (
        Client()
        .post("/clusters/nowhere/scheduling/what-if", data="{}", content_type="application/json")
        .status_code
        == 404
    )


def test_the_page_sends_what_a_student_typed_as_text(demo, client):
    drive()
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: typed}\nspec:\n  containers: [{name: c, image: nginx}]\n"
    )
    answer = ask(client, {"pod": text, "profile": "pluginConfig: []\n"})
    assert answer.status_code == 200 and answer.json()["pod"] == "default/typed"
    broken = ask(client, {"pod": "spec: [\n"})
    assert broken.status_code == 422 and broken.json()["message"].startswith(
        "what-if request is invalid: pod: Invalid value: invalid YAML"
    )


def test_what_ifs_are_limited_per_caller_but_not_for_the_teacher(demo, client, monkeypatch):
    from scheduler import what_if

    drive()
    monkeypatch.setattr(what_if, "PER_MINUTE", 2)
    anonymous = Client()
    codes = [ask(anonymous, {"pod": pod()}).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert all(ask(client, {"pod": pod()}).status_code == 200 for _ in range(3))

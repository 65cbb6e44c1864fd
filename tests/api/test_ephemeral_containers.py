"""pods/ephemeralcontainers as kube-apiserver serves it, and the Status details kubectl reads."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import PODS, post_pod

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]
SMP = "application/strategic-merge-patch+json"


def _debugger(**extra) -> dict:
    return {"name": "debugger-abcde", "image": "busybox:1.36", "stdin": True, "tty": True, **extra}


def _patch(client, *containers: dict):
    body = json.dumps({"spec": {"ephemeralContainers": list(containers)}})
    return client.patch(f"{PODS}/web/ephemeralcontainers", body, content_type=SMP)


def test_a_debug_container_is_added_with_its_defaults_and_nothing_else_changes(client, cluster):
    post_pod(client)
    before = client.get(f"{PODS}/web").json()
    response = _patch(client, _debugger(targetContainerName="web"))
    assert response.status_code == 200, response.content
    pod = response.json()
    assert pod["kind"] == "Pod"
    assert pod["spec"]["ephemeralContainers"] == [
        {
            **_debugger(targetContainerName="web"),
            "imagePullPolicy": "IfNotPresent",
            "resources": {},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
    ]
    assert pod["spec"]["containers"] == before["spec"]["containers"]
    assert client.get(f"{PODS}/web/ephemeralcontainers").json()["spec"]["ephemeralContainers"][0]["name"] == (
        "debugger-abcde"
    )


def test_upstreams_validation(client, cluster):
    post_pod(client)
    response = _patch(client, _debugger(ports=[{"containerPort": 80}], targetContainerName="nope"))
    assert response.status_code == 422
    body = response.json()
    assert body["message"] == (
        'Pod "web" is invalid: [spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral '
        'Container, spec.ephemeralContainers[0].targetContainerName: Not found: "nope"]'
    )
    assert body["details"]["kind"] == "Pod" and body["details"]["name"] == "web"
    clash = _patch(client, _debugger(name="web"))
    assert (
        clash.json()["message"]
        == 'Pod "web" is invalid: spec.ephemeralContainers[0].name: Duplicate value: "web"'
    )
    assert _patch(client, _debugger()).status_code == 200
    removed = _patch(client, _debugger(name="other"))
    assert removed.status_code == 200  # a strategic merge keeps the first: both are there now
    assert [c["name"] for c in removed.json()["spec"]["ephemeralContainers"]] == ["debugger-abcde", "other"]
    changed = client.put(
        f"{PODS}/web/ephemeralcontainers",
        json.dumps({**removed.json(), "spec": {**removed.json()["spec"], "ephemeralContainers": []}}),
        content_type="application/json",
    )
    assert changed.status_code == 422
    assert 'existing ephemeral containers "debugger-abcde" may not be removed' in changed.json()["message"]


def test_a_pod_update_cannot_add_one(client, cluster):
    post_pod(client)
    pod = client.get(f"{PODS}/web").json()
    pod["spec"]["ephemeralContainers"] = [_debugger()]
    response = client.put(f"{PODS}/web", json.dumps(pod), content_type="application/json")
    assert response.status_code == 422
    assert response.json()["message"].startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change'
    )


def test_unknown_paths_and_methods_carry_details_as_kube_apiserver(client, cluster):
    post_pod(client)
    missing = client.get(f"{PODS}/web/nosuchsub")
    assert missing.status_code == 404
    assert missing.json()["details"] == {}
    not_allowed = client.post(f"{PODS}/web/log", "{}", content_type="application/json")
    assert not_allowed.status_code == 405
    assert not_allowed.json()["details"] == {}

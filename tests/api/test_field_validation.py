"""fieldValidation on every path: the page's apply (Strict by default, as kubectl), the REST API
(Strict | Warn | Ignore), with upstream's texts for unknown and repeated fields."""

from __future__ import annotations

import json

import pytest

from cluster.models import ApiObject
from tests.support.strict import KUBECTL_TEXT
from tests.support.strict import TOLERATIONS_UNDER_THE_CONTAINER as TOLERATIONS

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]
APPLY = "/clusters/demo/apply"
PODS = "/clusters/demo/api/v1/namespaces/default/pods"


def test_apply_refuses_an_unknown_field_at_its_line_with_kubectls_text(client, cluster):
    response = client.post(APPLY, TOLERATIONS, content_type="application/yaml")
    assert response.status_code == 400
    body = response.json()
    assert body["reason"] == "BadRequest"
    [error] = body["details"]["errors"]
    assert (error["document"], error["line"], error["field"]) == (1, 9, "spec.containers[0].tolerations")
    assert error["message"] == KUBECTL_TEXT
    assert not ApiObject.objects.filter(name="gpu-job").exists()


def test_apply_locates_each_problem_in_a_later_document(client, cluster):
    ok = TOLERATIONS.replace("gpu-job", "ok").split("    tolerations")[0]
    text = ok + "---\n" + TOLERATIONS.replace("    tolerations:", "    nmae: x\n    tolerations:")
    errors = client.post(APPLY, text, content_type="application/yaml").json()["details"]["errors"]
    assert [(e["document"], e["line"], e["field"]) for e in errors] == [
        (2, 18, "spec.containers[0].nmae"),
        (2, 19, "spec.containers[0].tolerations"),
    ]
    assert not ApiObject.objects.filter(name="ok").exists()  # all or nothing


def test_apply_refuses_a_repeated_key_as_the_api_server_refuses_yaml(client, cluster):
    text = TOLERATIONS.split("    tolerations")[0] + "    image: busybox\n"
    [error] = client.post(APPLY, text, content_type="application/yaml").json()["details"]["errors"]
    assert (error["line"], error["field"]) == (9, "spec.containers[0].image")
    assert error["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'yaml: unmarshal errors:\n  line 9: key "image" already set in map'
    )


def test_apply_warn_creates_without_the_field_and_says_so(client, cluster):
    response = client.post(f"{APPLY}?fieldValidation=Warn", TOLERATIONS, content_type="application/yaml")
    assert response.status_code == 200
    assert response.json()["warnings"] == ['unknown field "spec.containers[0].tolerations"']
    stored = ApiObject.objects.get(name="gpu-job").body
    assert "tolerations" not in stored["spec"]["containers"][0]


def _pod_json(extra: str = "") -> str:
    return (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},'
        '"spec":{"containers":[{"name":"c","image":"nginx","image":"busybox"' + extra + "}]}}"
    )


def test_rest_strict_refuses_a_json_duplicate_field(client, cluster):
    response = client.post(f"{PODS}?fieldValidation=Strict", _pod_json(), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'duplicate field "spec.containers[0].image"'
    )


def test_rest_warn_answers_warning_headers_and_keeps_the_later_value(client, cluster):
    response = client.post(
        f"{PODS}?fieldValidation=Warn", _pod_json(',"tty2":true'), content_type="application/json"
    )
    assert response.status_code == 201
    assert response["Warning"] == (
        '299 - "duplicate field \\"spec.containers[0].image\\"", '
        '299 - "unknown field \\"spec.containers[0].tty2\\""'
    )
    container = response.json()["spec"]["containers"][0]
    assert container["image"] == "busybox" and "tty2" not in container


def test_rest_ignore_says_nothing_and_still_drops_the_field(client, cluster):
    response = client.post(
        f"{PODS}?fieldValidation=Ignore", _pod_json(',"tty2":true'), content_type="application/json"
    )
    assert response.status_code == 201
    assert not response.has_header("Warning")
    assert "tty2" not in json.loads(response.content)["spec"]["containers"][0]

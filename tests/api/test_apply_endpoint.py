"""POST /clusters/<c>/apply: multi-document YAML, all or nothing, errors with document and line."""

from __future__ import annotations

import pytest

from cluster.models import ApiObject, WatchEvent
from tests.apiserver.test_apply import THREE

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]
URL = "/clusters/demo/apply"


def post(client, text: str):
    return client.post(URL, text, content_type="application/yaml")


def test_apply_creates_then_reports_unchanged(client, cluster):
    response = post(client, THREE)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert [o["action"] for o in response.json()["objects"]] == ["created"] * 3
    assert [o["action"] for o in post(client, THREE).json()["objects"]] == ["unchanged"] * 3


def test_third_document_invalid_creates_nothing(client, cluster):
    response = post(client, THREE.replace("name: three", "name: Three"))
    assert response.status_code == 422
    body = response.json()
    assert body["kind"] == "Status" and body["reason"] == "Invalid"
    assert [(e["document"], e["line"], e["field"]) for e in body["details"]["errors"]] == [
        (3, 27, "metadata.name")
    ]
    assert not ApiObject.objects.exists() and not WatchEvent.objects.exists()


def test_alias_bomb_is_400(client, cluster):
    bomb = 'a: &a ["lol","lol"]\nb: &b [*a,*a]\nc: [*b,*b]\n'
    response = post(client, bomb)
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["line"] == 2


def test_malformed_yaml_is_400_with_line(client, cluster):
    response = post(client, "apiVersion: v1\nkind: Pod\n  metadata: x\n")
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["line"] == 3


def test_oversized_apply_is_413(client, cluster, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post(client, THREE + "#" + "x" * 2000 + "\n")
    assert response.status_code == 413
    assert not ApiObject.objects.exists()


def test_apply_needs_post(client, cluster):
    assert client.get(URL).status_code == 405


def test_replicas_written_as_an_integral_float_are_taken_as_kubectl_apply_takes_them(client, cluster):
    rc = (
        "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: web}\nspec:\n  replicas: 3.0\n"
        "  selector: {app: web}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: web, image: nginx}]}\n"
    )
    assert post(client, rc).status_code == 200
    assert ApiObject.objects.get(kind="ReplicationController", name="web").body["spec"]["replicas"] == 3
    half = post(client, rc.replace("web", "half").replace("3.0", "2.5"))
    assert half.status_code == 400, half.content
    assert "cannot unmarshal number 2.5" in half.json()["message"]


def test_a_value_the_decoder_refuses_is_shown_at_its_field_and_line(client, cluster):
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n"
        "    image: nginx\n    resources:\n      limits:\n        cpu: lots\n"
    )
    body = post(client, pod).json()
    assert body["code"] == 400
    assert [(e["line"], e["field"]) for e in body["details"]["errors"]] == [
        (11, "spec.containers[0].resources.limits.cpu")
    ]
    assert body["message"] == (
        'document 1, line 11: Pod in version "v1" cannot be handled as a Pod: quantities must match the '
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert not ApiObject.objects.exists()

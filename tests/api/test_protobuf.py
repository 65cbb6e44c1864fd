"""Protobuf request bodies over HTTP: decoded into the same pipeline as JSON, errors as Status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluster.models import ApiObject
from tests.protobuf.wirebytes import PREFIX, entry, envelope, msg, num, text

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

PROTOBUF = "application/vnd.kubernetes.protobuf"
ACCEPT = "application/vnd.kubernetes.protobuf,application/json"  # what kubectl's typed clients send
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "protobuf"
DEPLOYMENTS = "/clusters/demo/apis/apps/v1/namespaces/default/deployments"
PODS = "/clusters/demo/api/v1/namespaces/default/pods"


def post(client, url: str, body: bytes, content_type: str = PROTOBUF):
    return client.generic("POST", url, body, content_type=content_type, HTTP_ACCEPT=ACCEPT)


def status_of(response, code: int) -> dict:
    assert response.status_code == code, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["kind"] == "Status" and body["code"] == code
    return body


def without_server_fields(obj: dict) -> dict:
    obj = json.loads(json.dumps(obj))
    for key in ("uid", "resourceVersion", "creationTimestamp", "name", "generation", "managedFields"):
        obj["metadata"].pop(key, None)
    obj.pop("status", None)
    return obj


def test_kubectl_create_deployment_body_is_created_as_its_json_twin(client, cluster):
    response = post(client, DEPLOYMENTS, (FIXTURES / "deployment-web.bin").read_bytes())
    assert response.status_code == 201, response.content
    assert response["Content-Type"] == "application/json"
    created = response.json()
    assert created["metadata"]["name"] == "web"
    assert created["spec"]["replicas"] == 2

    twin = json.loads((FIXTURES / "deployment-web.json").read_text())
    twin["metadata"]["name"] = "web-json"
    from_json = client.post(DEPLOYMENTS, json.dumps(twin), content_type="application/json")
    assert from_json.status_code == 201
    assert without_server_fields(created) == without_server_fields(from_json.json())


def test_invalid_object_in_protobuf_is_422_as_in_json(client, cluster):
    # A pod with no containers: validation, not decoding, rejects it.
    body = envelope("v1", "Pod", msg(1, text(1, "empty")) + msg(2, b""))
    status = status_of(post(client, PODS, body), 422)
    assert status["reason"] == "Invalid"
    assert "spec.containers: Required value" in status["message"]
    assert not ApiObject.objects.exists()


def test_truncated_body_is_400_naming_the_problem(client, cluster):
    raw = (FIXTURES / "deployment-web.bin").read_bytes()
    status = status_of(post(client, DEPLOYMENTS, raw[:-5]), 400)
    assert status["reason"] == "BadRequest"
    # The envelope itself is cut short, so no kind was read: upstream's "unrecognized" form.
    assert status["message"] == (
        "the object provided is unrecognized (must be of type Deployment): unexpected EOF "
        "(6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b001 ...)"
    )
    assert not ApiObject.objects.exists()


def test_json_sent_as_protobuf_is_400_with_upstreams_summary(client, cluster):
    status = status_of(post(client, DEPLOYMENTS, b'{"kind":"Deployment","apiVersion":"apps/v1"}'), 400)
    assert status["message"] == (
        "the object provided is unrecognized (must be of type Deployment): provided data does not appear "
        'to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"Deployment","apiVersi ...)'
    )


def test_unregistered_kind_is_400(client, cluster):
    status = status_of(post(client, DEPLOYMENTS, envelope("apps/v1", "Gadget", b"")), 400)
    assert status["message"] == (
        'Gadget in version "v1" cannot be handled as a Deployment: no kind "Gadget" is registered for '
        'version "apps/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'
    )


def test_wrong_wire_type_is_400(client, cluster):
    status = status_of(
        post(client, DEPLOYMENTS, envelope("apps/v1", "Deployment", text(2, text(1, "x")))), 400
    )
    assert status["message"].endswith("proto: wrong wireType = 2 for field Replicas")


def test_compressed_envelope_is_415(client, cluster):
    status = status_of(
        post(client, DEPLOYMENTS, envelope("apps/v1", "Deployment", b"", encoding="gzip")), 415
    )
    assert status["reason"] == "UnsupportedMediaType"
    assert "gzip" in status["message"]


def test_other_body_types_are_415_listing_protobuf(client, cluster):
    status = status_of(post(client, DEPLOYMENTS, b"x", content_type="text/plain"), 415)
    assert status["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml, application/vnd.kubernetes.protobuf"
    )


def _pod(client, name: str = "web") -> dict:
    body = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        }
    )
    response = client.post(PODS, body, content_type="application/json")
    assert response.status_code == 201
    return response.json()


def delete(client, url: str, body: bytes):
    return client.generic("DELETE", url, body, content_type=PROTOBUF, HTTP_ACCEPT=ACCEPT)


def test_delete_with_protobuf_delete_options(client, cluster):
    _pod(client)
    response = delete(client, f"{PODS}/web", (FIXTURES / "deleteoptions-drain.bin").read_bytes())
    assert response.status_code == 200
    assert response.json()["metadata"]["name"] == "web"
    assert not ApiObject.objects.filter(name="web").exists()


def test_protobuf_delete_options_preconditions_and_dry_run_are_honoured(client, cluster):
    pod = _pod(client)
    stale = envelope("v1", "DeleteOptions", msg(2, text(2, "999")))
    assert status_of(delete(client, f"{PODS}/web", stale), 409)["reason"] == "Conflict"
    dry = envelope("v1", "DeleteOptions", text(5, "All"))  # dryRun: [All]
    assert delete(client, f"{PODS}/web", dry).status_code == 200
    assert ApiObject.objects.filter(name="web").exists()
    rv = pod["metadata"]["resourceVersion"]
    fresh = envelope("v1", "DeleteOptions", msg(2, text(2, rv)))
    assert delete(client, f"{PODS}/web", fresh).status_code == 200
    assert not ApiObject.objects.filter(name="web").exists()


def test_malformed_delete_options_are_400(client, cluster):
    _pod(client)
    status = status_of(delete(client, f"{PODS}/web", PREFIX + b"\x0a\x09"), 400)
    assert status["message"] == (
        "the object provided is unrecognized (must be of type DeleteOptions): unexpected EOF (6b3873000a09)"
    )
    assert ApiObject.objects.filter(name="web").exists()


def test_put_scale_in_protobuf(client, cluster):
    post(client, DEPLOYMENTS, (FIXTURES / "deployment-web.bin").read_bytes())
    scale = envelope(
        "autoscaling/v1", "Scale", msg(1, text(1, "web"), text(3, "default")) + msg(2, num(1, 5))
    )
    response = client.generic("PUT", f"{DEPLOYMENTS}/web/scale", scale, content_type=PROTOBUF)
    assert response.status_code == 200, response.content
    assert response.json()["spec"]["replicas"] == 5
    assert client.get(f"{DEPLOYMENTS}/web").json()["spec"]["replicas"] == 5


def test_answers_are_json_for_kubectls_accept_header(client, cluster):
    response = client.get(PODS, HTTP_ACCEPT=ACCEPT)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


def test_a_client_that_accepts_only_protobuf_gets_406(client, cluster):
    status = status_of(client.get(PODS, HTTP_ACCEPT=PROTOBUF), 406)
    assert status["reason"] == "NotAcceptable"
    assert status["message"] == "only the following media types are accepted: application/json"


def test_managed_fields_in_a_protobuf_body_are_decoded_from_their_raw_json(client, cluster):
    fields = msg(
        17,
        text(1, "gitops"),
        text(2, "Apply"),
        text(3, "v1"),
        text(6, "FieldsV1"),
        msg(7, text(1, b'{"f:metadata":{"f:labels":{"f:team":{}}}}')),
    )
    body = envelope("v1", "ConfigMap", msg(1, text(1, "carried"), fields) + entry(2, "k", "v"))
    response = post(client, "/clusters/demo/api/v1/namespaces/default/configmaps", body)
    assert response.status_code == 201, response.content
    entries = response.json()["metadata"]["managedFields"]
    # The data is the creator's (a client with no User-Agent: the page's and labs' name).
    assert [(e["manager"], e["operation"]) for e in entries] == [("gitops", "Apply"), ("kubesim", "Update")]
    assert entries[0]["fieldsV1"] == {"f:metadata": {"f:labels": {"f:team": {}}}}

"""/openapi/v2: the Swagger 2.0 document kube-apiserver serves, in JSON (not in gnostic protobuf)."""

from __future__ import annotations

import json

import pytest

from cluster.kubeapi.openapiv2 import accepts_json
from cluster.openapi import definitions

pytestmark = [pytest.mark.urls("kubesim.urls"), pytest.mark.django_db]
URL = "/clusters/demo/openapi/v2"
PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def test_the_document_lists_every_served_kind_with_upstreams_definitions(client, cluster):
    response = client.get(URL)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    doc = json.loads(response.content)
    assert doc["swagger"] == "2.0" and doc["info"] == {"title": "Kubernetes", "version": "v1.33.1"}
    deployment = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert deployment["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "kind": "Deployment",
        "version": "v1",
    }
    assert "application/strategic-merge-patch+json" in deployment["consumes"]
    assert deployment["parameters"][0]["schema"] == {"$ref": "#/definitions/io.k8s.api.apps.v1.Deployment"}
    pod = "io.k8s.api.core.v1.Pod"
    assert doc["definitions"][pod] == definitions.DEFINITIONS[pod]
    refs = {m for m in json.dumps(doc["definitions"]).split('"') if m.startswith("#/definitions/")}
    assert {r.removeprefix("#/definitions/") for r in refs} <= doc["definitions"].keys()  # no dangling ref
    assert "/api/v1/namespaces/{namespace}/pods" in doc["paths"] and "/api/v1/nodes/{name}" in doc["paths"]


def test_kubectls_protobuf_only_accept_is_406_so_it_keeps_its_compiled_patch_metadata(client, cluster):
    response = client.get(URL, headers={"Accept": PROTOBUF})
    assert response.status_code == 406
    status = json.loads(response.content)  # every error on the API is a Status (client-go: IsNotAcceptable)
    assert (status["kind"], status["reason"], status["code"]) == ("Status", "NotAcceptable", 406)


@pytest.mark.parametrize(
    ("accept", "json_ok"),
    [
        ("", True),
        ("*/*", True),
        ("application/json, */*", True),
        (f"{PROTOBUF}, application/json;q=0.5", True),
        ("text/html", False),
        ("application/json;q=0", False),
    ],
)
def test_the_accept_header_is_read_as_kube_openapi_reads_it(accept, json_ok):
    assert accepts_json(accept) is json_ok

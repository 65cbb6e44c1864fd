"""The web console decodes strictly, as kubectl's fieldValidation=Strict: unknown and repeated
fields refuse the object with the text the real kubectl prints (tests/kubectl compares them)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from tests.support.auth import teacher_client
from tests.support.strict import KUBECTL_TEXT
from tests.support.strict import TOLERATIONS_UNDER_THE_CONTAINER as TOLERATIONS

REFUSED = f'Error from server (BadRequest): error when creating "tol.yaml": {KUBECTL_TEXT}\n'


@pytest.fixture
def console(db):
    create_demo()
    client: Client = teacher_client()
    saved = json.dumps({"name": "tol.yaml", "text": TOLERATIONS})
    client.post("/clusters/demo/ui/files", saved, "application/json")

    def run(command: str, stdin: str = "") -> dict:
        body = json.dumps({"command": command, "stdin": stdin})
        return client.post("/clusters/demo/ui/console", body, "application/json").json()

    return run


def _demo() -> Cluster:
    return Cluster.objects.get(name="demo")


def _pods(name: str) -> list:
    return [p for p in api.list_items(_demo(), "Pod", "default") if p["metadata"]["name"] == name]


@pytest.mark.parametrize("verb", ["apply", "create"])
def test_an_unknown_field_is_refused_with_kubectls_text(console, verb):
    result = console(f"kubectl {verb} -f tol.yaml")
    assert (result["output"], result["exit_code"]) == (REFUSED, 1)
    assert _pods("gpu-job") == []


def test_apply_to_an_existing_object_is_refused_as_its_patch_is(console):
    assert console("kubectl apply -f -", TOLERATIONS.split("    tolerations")[0])["exit_code"] == 0
    result = console("kubectl apply -f tol.yaml")
    assert result["output"] == (
        'Error from server (BadRequest): error when patching "tol.yaml": '
        'strict decoding error: unknown field "spec.containers[0].tolerations"\n'
    )
    assert "tolerations" not in _pods("gpu-job")[0]["spec"]["containers"][0]


def test_a_repeated_key_is_refused_as_the_api_server_refuses_it_in_yaml(console):
    text = TOLERATIONS.split("    tolerations")[0] + "    image: busybox\n"
    assert console("kubectl create -f -", text)["output"] == (
        'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be '
        'handled as a Pod: strict decoding error: yaml: unmarshal errors:\n  line 9: key "image" '
        "already set in map\n"
    )
    assert _pods("gpu-job") == []

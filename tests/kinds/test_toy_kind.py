"""A new kind needs one registration and nothing else (docs/adding-a-kind.md).

A toy cluster-scoped kind, registered through the registry only, gets discovery, OpenAPI, REST
(create, get, list, table, delete), describe, the web console, and labs support.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from cluster.apiserver import kinds
from cluster.apiserver import service as api
from cluster.apiserver.fielderrors import FieldErrors
from cluster.controlplane.demo import create_demo
from cluster.kubeapi.tables import TableSpec
from labs.loader import load_lab
from labs.sandbox import clear
from tests.support.auth import teacher_client

BASE = "/clusters/demo/apis/toys.kubesim.dev/v1"


def _defaults(obj: dict) -> None:
    obj.setdefault("spec", {}).setdefault("colour", "red")


def _validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    if not isinstance((obj.get("spec") or {}).get("colour"), str):
        errors.invalid("spec.colour", (obj.get("spec") or {}).get("colour"), "must be a string")


def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], obj["spec"]["colour"]]


def _describe(read, namespace: str, name: str) -> str:
    obj = read.get("Widget", None, name)
    return f"Name:\t{name}\nColour:\t{obj['spec']['colour']}\n"


WIDGET = kinds.KindInfo(
    kind="Widget",
    plural="widgets",
    singular="widget",
    group="toys.kubesim.dev",
    version="v1",
    namespaced=False,
    short_names=("wg",),
    defaults=_defaults,
    validate=_validate,
    table=TableSpec((("Name", "string", "name", 0), ("Colour", "string", "", 0)), _row),
    describe=_describe,
)


@pytest.fixture
def widget_kind():
    kinds.register(WIDGET)
    yield WIDGET
    kinds.unregister("Widget")


@pytest.fixture
def demo(db):
    return create_demo()


def _console(command: str, stdin: str = "") -> dict:
    response = teacher_client().post(
        "/clusters/demo/ui/console", json.dumps({"command": command, "stdin": stdin}), "application/json"
    )
    assert response.status_code == 200
    return response.json()


def test_a_registered_toy_kind_is_served_everywhere(widget_kind, demo):
    client = teacher_client()
    # Discovery and OpenAPI.
    groups = client.get("/clusters/demo/apis").json()
    assert "toys.kubesim.dev" in [g["name"] for g in groups["groups"]]
    listing = client.get(BASE).json()
    entry = next(r for r in listing["resources"] if r["name"] == "widgets")
    assert entry["kind"] == "Widget" and entry["namespaced"] is False and entry["shortNames"] == ["wg"]
    doc = client.get("/clusters/demo/openapi/v3/apis/toys.kubesim.dev/v1").json()
    assert "/apis/toys.kubesim.dev/v1/widgets" in doc["paths"]

    # REST: create (defaults run), get, list, a Table, invalid input refused.
    body = {"apiVersion": "toys.kubesim.dev/v1", "kind": "Widget", "metadata": {"name": "w1"}}
    created = client.post(f"{BASE}/widgets", json.dumps(body), content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["spec"] == {"colour": "red"}
    assert client.get(f"{BASE}/widgets/w1").json()["metadata"]["name"] == "w1"
    assert [i["metadata"]["name"] for i in client.get(f"{BASE}/widgets").json()["items"]] == ["w1"]
    table = client.get(f"{BASE}/widgets", HTTP_ACCEPT="application/json;as=Table;v=v1;g=meta.k8s.io").json()
    assert table["kind"] == "Table" and table["rows"][0]["cells"] == ["w1", "red"]
    bad = {**body, "metadata": {"name": "w2"}, "spec": {"colour": 7}}
    refused = client.post(f"{BASE}/widgets", json.dumps(bad), content_type="application/json")
    assert refused.status_code == 422 and refused.json()["reason"] == "Invalid"
    assert (
        client.post(
            f"{BASE}/namespaces/default/widgets", json.dumps(body), content_type="application/json"
        ).status_code
        == 404
    )

    # The console: get by every name, describe through the hook.
    assert _console("get wg")["output"] == "NAME   COLOUR\nw1     red\n"
    assert _console("get widgets.toys.kubesim.dev -o name")["output"] == "widget.toys.kubesim.dev/w1\n"
    assert _console("describe widget w1")["output"] == "Name:\tw1\nColour:\tred\n"

    # Labs: a lab may create it and check it, and a reset removes it.
    lab = load_lab(
        """id: widgets
title: {en: Widgets, zh: 小部件}
level: beginner
minutes: 5
cluster:
  manifests: |
    apiVersion: toys.kubesim.dev/v1
    kind: Widget
    metadata: {name: w3}
steps:
  - id: see
    title: {en: See, zh: 看}
    instructions: {en: Look, zh: 看}
    checks:
      - type: exists
        kind: Widget
        name: w3
    solution:
      commands: [kubectl get widgets]
"""
    )
    assert lab.steps[0].checks[0].params["kind"] == "Widget"
    clear(demo)
    assert api.list_objects(demo, "Widget")[0] == []

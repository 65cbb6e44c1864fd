"""docs/adding-a-kind.md runs as written: its worked example (PodTemplate), taken from the page,
is a module that passes the house's lint and, registered as `cluster/kinds/builtin.py` registers
kinds, is served everywhere a kind is."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from cluster.apiserver import kinds
from cluster.apiserver import service as api
from cluster.controlplane.demo import create_demo
from labs.loader import load_lab
from labs.sandbox import clear
from tests.support.auth import teacher_client

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "adding-a-kind.md"
MODULE = "cluster.kinds.core.podtemplate"
BASE = "/clusters/demo/api/v1/namespaces/default/podtemplates"
TEMPLATE = {
    "apiVersion": "v1",
    "kind": "PodTemplate",
    "metadata": {"name": "web"},
    "template": {
        "metadata": {"labels": {"app": "web", "tier": "front"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]},
    },
}


def _worked_example() -> tuple[str, str]:
    """(the module's path, its source) as the page shows them."""
    found = re.search(r"<!-- worked-example: (\S+) -->\n```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert found, "docs/adding-a-kind.md has no worked example"
    return found.group(1), found.group(2)


def _load() -> types.ModuleType:
    path, source = _worked_example()
    assert path == MODULE.replace(".", "/") + ".py"
    module = types.ModuleType(MODULE)
    module.__file__ = str(ROOT / path)
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def test_the_worked_example_is_the_served_module():
    # KubeSim serves PodTemplate from this very module: the page may not drift from it.
    path, source = _worked_example()
    assert (ROOT / path).read_text() == source


@pytest.fixture
def podtemplate():
    module = _load()
    served = kinds.kind_info("PodTemplate")
    if served is None:  # the page alone, registered as cluster/kinds/builtin.py registers it
        kinds.register(module.KIND)
    yield module.KIND
    if served is None:
        kinds.unregister("PodTemplate")


@pytest.fixture
def demo(db):
    return create_demo()


def _console(command: str) -> str:
    response = teacher_client().post(
        "/clusters/demo/ui/console", json.dumps({"command": command, "stdin": ""}), "application/json"
    )
    assert response.status_code == 200
    return response.json()["output"]


def test_the_worked_example_is_house_style(tmp_path):
    path, source = _worked_example()
    target = tmp_path / Path(path).name
    target.write_text(source)
    ruff = [sys.executable, "-m", "ruff", "--config", str(ROOT / "pyproject.toml")]
    for command in ("check", "format --check"):
        result = subprocess.run([*ruff, *command.split(), str(target)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_worked_example_is_served_everywhere(podtemplate, demo):
    client = teacher_client()
    # Discovery and OpenAPI.
    listing = client.get("/clusters/demo/api/v1").json()
    entry = next(r for r in listing["resources"] if r["name"] == "podtemplates")
    assert entry["kind"] == "PodTemplate" and entry["namespaced"] is True and "shortNames" not in entry
    doc = client.get("/clusters/demo/openapi/v3/api/v1").json()
    assert "/api/v1/namespaces/{namespace}/podtemplates" in doc["paths"]

    # REST: create (the template's pod spec defaulted), get, list, the table.
    created = client.post(BASE, json.dumps(TEMPLATE), content_type="application/json")
    assert created.status_code == 201, created.content
    spec = created.json()["template"]["spec"]
    assert spec["restartPolicy"] == "Always" and spec["containers"][0]["imagePullPolicy"] == "IfNotPresent"
    assert created.json()["metadata"]["generation"] == 1
    assert client.get(f"{BASE}/web").json()["metadata"]["namespace"] == "default"
    assert [i["metadata"]["name"] for i in client.get(BASE).json()["items"]] == ["web"]
    table = client.get(BASE, HTTP_ACCEPT="application/json;as=Table;v=v1;g=meta.k8s.io").json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Containers", "Images", "Pod Labels"]
    assert table["rows"][0]["cells"] == ["web", "nginx", "nginx:1.27", "app=web,tier=front"]

    # Validation in upstream's words.
    empty = {**TEMPLATE, "metadata": {"name": "empty"}, "template": {"spec": {}}}
    refused = client.post(BASE, json.dumps(empty), content_type="application/json")
    assert refused.status_code == 422
    message = 'PodTemplate "empty" is invalid: template.spec.containers: Required value'
    assert refused.json()["message"] == message
    bad_label = {**TEMPLATE, "metadata": {"name": "bad"}}
    bad_label["template"] = {**TEMPLATE["template"], "metadata": {"labels": {"app": "-x"}}}
    refused = client.post(BASE, json.dumps(bad_label), content_type="application/json")
    assert refused.status_code == 422
    assert refused.json()["details"]["causes"][0]["field"] == "template.labels"
    ephemeral = [{"name": "debug", "image": "busybox:1.36"}]
    with_ephemeral = {**TEMPLATE, "metadata": {"name": "eph"}}
    with_ephemeral["template"] = {"spec": {**TEMPLATE["template"]["spec"], "ephemeralContainers": ephemeral}}
    refused = client.post(BASE, json.dumps(with_ephemeral), content_type="application/json")
    assert refused.json()["message"] == (
        'PodTemplate "eph" is invalid: template.spec.ephemeralContainers: '
        "Forbidden: ephemeral containers not allowed in pod template"
    )

    # Generation: kept by a metadata-only change, bumped by a changed template.
    stored = client.get(f"{BASE}/web").json()
    stored["metadata"]["annotations"] = {"note": "x"}
    stored = client.put(f"{BASE}/web", json.dumps(stored), content_type="application/json").json()
    assert stored["metadata"]["generation"] == 1
    stored["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    stored = client.put(f"{BASE}/web", json.dumps(stored), content_type="application/json").json()
    assert stored["metadata"]["generation"] == 2
    stored["template"]["spec"]["containers"][0]["image"] = "nginx:1.27"
    client.put(f"{BASE}/web", json.dumps(stored), content_type="application/json")

    # The console: get and the generic describer.
    assert _console("get podtemplates") == (
        "NAME   CONTAINERS   IMAGES       POD LABELS\nweb    nginx        nginx:1.27   app=web,tier=front\n"
    )
    described = _console("describe podtemplate web")
    assert described.startswith("Name:         web\nNamespace:    default\nLabels:       <none>\n")
    assert "Template:\n  Metadata:\n    Labels:\n      App:   web\n" in described
    assert re.search(r"\nEvents:\s+<none>\n$", described)

    # Labs: a lab may create it and check it, and a reset removes it.
    lab = load_lab(
        """id: templates
title: {en: Templates, zh: 模板}
level: beginner
minutes: 5
cluster:
  manifests: |
    apiVersion: v1
    kind: PodTemplate
    metadata: {name: t}
    template:
      spec:
        containers: [{name: c, image: busybox:1.36}]
steps:
  - id: see
    title: {en: See, zh: 看}
    instructions: {en: Look, zh: 看}
    checks:
      - type: exists
        kind: PodTemplate
        name: t
    solution:
      commands: [kubectl get podtemplates]
"""
    )
    assert lab.steps[0].checks[0].params["kind"] == "PodTemplate"
    clear(demo)
    assert api.list_objects(demo, "PodTemplate")[0] == []

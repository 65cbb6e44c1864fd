"""The scheduler settings view's endpoints: the profiles with their differences from the defaults,
a weight edited without writing, the save (teacher), and a refused file's located error."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from cluster.apiserver import service as api
from scheduler.service import attempts
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)

BASE = "/clusters/demo/scheduling/config"


def post(client, url, body):
    return client.post(url, data=json.dumps(body), content_type="application/json")


def test_the_defaults_then_a_weight_previewed_saved_and_used(demo, client):
    drive()
    shown = client.get(BASE).json()
    assert shown["exists"] is False and shown["error"] is None
    [profile] = shown["profiles"]
    assert profile["schedulerName"] == "default-scheduler" and profile["diff"] == []
    assert {"name": "TaintToleration", "weight": 3, "defaultWeight": 3} in profile["scores"]
    revision = api.current_revision(demo)
    body = {"text": "", "profile": "default-scheduler", "plugin": "ImageLocality", "weight": 50}
    preview = post(client, f"{BASE}/preview", body).json()
    assert api.current_revision(demo) == revision  # a preview writes nothing
    assert "name: ImageLocality" in preview["text"] and "weight: 50" in preview["text"]
    [edited] = preview["profiles"]
    assert edited["diff"] == [
        {"change": "weight", "point": "score", "plugin": "ImageLocality", "from": 1, "to": 50}
    ]
    saved = post(client, BASE, {"text": preview["text"]})
    assert saved.status_code == 200 and saved.json()["exists"] is True
    drive()
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
    }
    api.create(demo, pod, KUBECTL)
    drive()
    [attempt] = attempts(demo, "default", "w")
    assert {"name": "ImageLocality", "weight": 50, "legacy": ["ImageLocalityPriority"]} in attempt[
        "decision"
    ]["scorePlugins"]


def test_an_invalid_file_is_not_saved_from_the_page_and_a_written_one_shows_its_error(demo, client):
    drive()
    bad = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    bad += "profiles:\n  - schedulerNam: x\n"
    refused = post(client, BASE, {"text": bad})
    assert refused.status_code == 422
    assert refused.json()["message"] == "config.yaml (line 4): profiles[0].schedulerNam: unknown field"
    assert client.get(BASE).json()["exists"] is False
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "data": {"config.yaml": bad},
    }
    api.create(demo, cm, KUBECTL)
    shown = client.get(BASE).json()
    assert shown["error"] == "config.yaml (line 4): profiles[0].schedulerNam: unknown field"
    assert shown["profiles"] is None


def test_saving_needs_write_access(demo):
    drive()
    answered = post(Client(), BASE, {"text": ""})
    assert answered.status_code in (401, 403)
    assert Client().get(BASE).status_code == 200

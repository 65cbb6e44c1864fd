"""The page, its redirects, access and its embedded boot data."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from cluster.controlplane.demo import create_demo
from cluster.models import Cluster


@pytest.fixture
def demo(db):
    return create_demo()


def test_root_redirects_to_the_demo_cluster(demo):
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"] == "/clusters/demo/"


def test_page_embeds_the_13_steps_in_both_languages_and_the_examples(demo):
    response = Client().get("/clusters/demo/")
    assert response.status_code == 200
    html = response.content.decode()
    boot = json.loads(html.split('<script id="ks-boot" type="application/json">', 1)[1].split("</script>")[0])
    assert [step["step"] for step in boot["steps"]] == list(range(1, 14))
    assert boot["steps"][1]["title"] == {"en": "kubectl sends the request", "zh": "kubectl 提交请求"}
    assert {"pod-nodeselector", "rc-nginx"} <= {example["name"] for example in boot["examples"]}
    assert "csrftoken" in response.cookies


def test_page_speaks_chinese_when_asked(demo):
    client = Client()
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/clusters/demo/"})
    html = client.get("/clusters/demo/").content.decode()
    assert '<html lang="zh-hans"' in html
    assert "调度器" in html and "应用 YAML" in html


def test_a_private_cluster_is_hidden_from_others(db):
    owner = User.objects.create_user("teacher", password="x" * 12)
    Cluster.objects.create(name="sandbox", public=False, owner=owner)
    assert Client().get("/clusters/sandbox/").status_code == 404
    client = Client()
    client.force_login(owner)
    assert client.get("/clusters/sandbox/").status_code == 200


def test_describe_and_events_views_print_kubectl_text(demo):
    client = Client()
    described = client.get("/clusters/demo/ui/describe/Node/-/node1")
    assert described.status_code == 200
    assert described.content.decode().startswith("Name:               node1")
    missing = client.get("/clusters/demo/ui/describe/Pod/default/nope")
    assert missing.status_code == 404
    assert missing.content.decode() == 'Error from server (NotFound): pods "nope" not found\n'
    events = client.get("/clusters/demo/ui/events/Node/-/node1")
    assert events.status_code == 200


def test_every_ui_string_has_a_chinese_translation():
    from django.utils import translation

    from dashboard.strings import ui_strings

    with translation.override("en"):
        english = ui_strings()
    with translation.override("zh-hans"):
        chinese = ui_strings()
    same = {key for key in english if english[key] == chinese[key]}
    assert same == {"cpu"}  # "CPU" is CPU in both languages

"""Every bad input is a Kubernetes Status with the right code, and changes nothing."""

from __future__ import annotations

import json

import pytest

from bench.hostile.bodies import valid
from bench.hostile.client import APPLY, JSON_PATCH, MERGE, STRATEGIC, managed_path
from cluster.models import Cluster

pytestmark = pytest.mark.django_db
BASE = "/clusters/demo/api/v1/namespaces/default"
RCS = f"{BASE}/replicationcontrollers"
APPS = "/clusters/demo/apis/apps/v1/namespaces/default"


@pytest.fixture
def cluster(db) -> Cluster:
    return Cluster.objects.create(name="demo")


def revision() -> int:
    return Cluster.objects.get(name="demo").revision


def status_of(response, code: int) -> dict:
    assert response.status_code == code, response.content[:500]
    body = json.loads(response.content)
    assert body["kind"] == "Status" and body["code"] == code
    return body


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [101, 1_000, 100_000])
def test_nesting_deeper_than_100_levels_is_refused_in_every_body(client, cluster, depth):
    client.post(RCS, json.dumps(valid("ReplicationController", "rc")), content_type="application/json")
    before = revision()
    deep = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","annotations":' + nested(depth) + "}}"
    status_of(client.post(f"{BASE}/pods", deep, content_type="application/json"), 400)
    status_of(client.put(f"{RCS}/rc", deep, content_type="application/json"), 400)
    for media in (MERGE, STRATEGIC, APPLY):
        status_of(client.patch(managed_path(f"{RCS}/rc", media), deep, content_type=media), 400)
    status_of(client.patch(f"{RCS}/rc", "[" * depth + "]" * depth, content_type=JSON_PATCH), 400)
    yaml_deep = "a: " + "[" * depth + "]" * depth
    status_of(client.post("/clusters/demo/apply", yaml_deep, content_type="application/yaml"), 400)
    status_of(client.post(f"{BASE}/pods", yaml_deep, content_type="application/yaml"), 400)
    assert revision() == before


def test_exactly_100_levels_are_still_read(client, cluster):
    body = valid("Pod", "p")
    inner: dict = {}
    cursor = inner
    for _ in range(95):  # metadata.annotations... stays well inside 100 levels with the envelope
        cursor["a"] = {}
        cursor = cursor["a"]
    body["spec"]["containers"][0]["x-nested"] = inner  # an unknown field: dropped, with a warning
    response = client.post(f"{BASE}/pods", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content[:300]


NOT_UTF8 = b'{"metadata":{"annotations":{"a":"\xff\xfe"}}}'


def test_bodies_that_are_not_utf8_are_refused_in_every_verb(client, cluster):
    client.post(RCS, json.dumps(valid("ReplicationController", "rc")), content_type="application/json")
    before = revision()
    status_of(client.post(f"{BASE}/pods", NOT_UTF8, content_type="application/json"), 400)
    status_of(client.post(f"{BASE}/pods", NOT_UTF8, content_type="application/yaml"), 400)
    status_of(client.put(f"{RCS}/rc", NOT_UTF8, content_type="application/json"), 400)
    for media in (MERGE, STRATEGIC, JSON_PATCH, APPLY):
        body = status_of(client.patch(managed_path(f"{RCS}/rc", media), NOT_UTF8, content_type=media), 400)
        assert body["message"] == "the request body is not valid UTF-8"
    status_of(client.patch(f"{RCS}/rc/scale", NOT_UTF8, content_type=MERGE), 400)
    status_of(client.delete(f"{RCS}/rc", NOT_UTF8, content_type="application/json"), 400)
    status_of(client.post("/clusters/demo/apply", NOT_UTF8, content_type="application/yaml"), 400)
    assert revision() == before
    stored = json.loads(client.get(f"{RCS}/rc").content)
    assert "annotations" not in stored["metadata"]  # nothing was stored as U+FFFD


def test_annotations_over_256_kib_are_invalid(client, cluster):
    pod = valid("Pod", "big")
    pod["metadata"]["annotations"] = {"a": "x" * (256 * 1024)}  # 1 byte of key + 256 KiB: too long
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json"), 422)
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueTooLong",
            "message": "Too long: may not be more than 262144 bytes",
            "field": "metadata.annotations",
        }
    ]
    pod["metadata"]["annotations"] = {"a": "x" * (256 * 1024 - 1)}  # exactly the limit
    assert client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json").status_code == 201
    patch = json.dumps({"metadata": {"annotations": {"b": "y"}}})
    status_of(client.patch(f"{BASE}/pods/big", patch, content_type=MERGE), 422)


def test_annotation_keys_are_qualified_names_of_any_case(client, cluster):
    pod = valid("Pod", "keys")
    pod["metadata"]["annotations"] = {"Example.COM/Key": "v", "<b>": "v"}
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json"), 422)
    assert [c["field"] for c in body["details"]["causes"]] == ["metadata.annotations"]
    assert body["details"]["causes"][0]["message"].startswith('Invalid value: "<b>": name part must consist')


def test_taint_and_toleration_values_are_label_values(client, cluster):
    node = valid("Node", "n1")
    node["spec"]["taints"] = [{"key": "k", "value": "<script>alert(1)</script>", "effect": "NoSchedule"}]
    nodes = "/clusters/demo/api/v1/nodes"
    body = status_of(client.post(nodes, json.dumps(node), content_type="application/json"), 422)
    (cause,) = body["details"]["causes"]
    assert cause["field"] == "spec.taints[0].value"
    assert cause["message"] == (
        'Invalid value: "<script>alert(1)</script>": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    pod = valid("Pod", "tol")
    pod["spec"]["tolerations"] = [{"key": "k", "operator": "Equal", "value": "a b", "effect": "NoSchedule"}]
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json"), 422)
    assert [c["field"] for c in body["details"]["causes"]] == ["spec.tolerations[0].operator"]


def test_label_keys_with_two_slashes_get_upstreams_message(client, cluster):
    pod = valid("Pod", "slashes")
    pod["metadata"]["labels"] = {"a/b/c": "v"}
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json"), 422)
    assert body["details"]["causes"][0]["message"].endswith(
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    )


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        ("ReplicationController", RCS),
        ("ReplicaSet", f"{APPS}/replicasets"),
        ("Deployment", f"{APPS}/deployments"),
    ],
)
def test_replicas_are_an_int32_of_at_least_zero(client, cluster, kind, url):
    for replicas, message in (
        (2**40, "Invalid value: 1099511627776: must be less than or equal to 2147483647"),
        (-1, "Invalid value: -1: must be greater than or equal to 0"),
    ):
        body = valid(kind, "w")
        body["spec"]["replicas"] = replicas
        answer = status_of(client.post(url, json.dumps(body), content_type="application/json"), 422)
        assert answer["details"]["causes"][0] == {
            "reason": "FieldValueInvalid",
            "message": message,
            "field": "spec.replicas",
        }
    body = valid(kind, "w")
    body["spec"]["replicas"] = 2**31 - 1
    assert client.post(url, json.dumps(body), content_type="application/json").status_code == 201
    before = revision()
    too_many = json.dumps({"spec": {"replicas": 2**31}})
    status_of(client.patch(f"{url}/w/scale", too_many, content_type=MERGE), 422)
    text = json.dumps({"spec": {"replicas": "3"}})
    status_of(client.put(f"{url}/w/scale", text, content_type="application/json"), 400)
    status_of(client.patch(f"{url}/w/scale", json.dumps({"spec": 7}), content_type=MERGE), 422)
    status_of(client.patch(f"{url}/w", too_many, content_type=MERGE), 422)
    assert revision() == before


def test_wrong_types_are_worded_as_the_api_servers_decoder(client, cluster):
    pod = valid("Pod", "p")
    pod["spec"]["containers"] = 7
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type="application/json"), 400)
    assert body["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct '
        "field PodSpec.spec.containers of type []v1.Container"
    )
    rc = valid("ReplicationController", "rc")
    client.post(RCS, json.dumps(rc), content_type="application/json")
    patch = json.dumps({"spec": {"template": "str"}})
    body = status_of(client.patch(f"{RCS}/rc", patch, content_type=MERGE), 422)
    assert body["details"]["causes"][0]["field"] == "patch"
    assert body["message"].endswith(
        "json: cannot unmarshal string into Go struct field ReplicationControllerSpec.spec.template of type "
        "v1.PodTemplateSpec"
    )


def test_an_unknown_propagation_policy_is_invalid(client, cluster):
    client.post(RCS, json.dumps(valid("ReplicationController", "rc")), content_type="application/json")
    body = status_of(client.delete(f"{RCS}/rc?propagationPolicy=Sideways"), 422)
    assert body["details"]["causes"][0]["field"] == "propagationPolicy"

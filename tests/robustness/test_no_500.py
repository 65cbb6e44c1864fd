"""Inputs that once answered 500: each is now a 4xx (a Kubernetes Status on the API's paths) and
changes nothing, or is read as upstream reads it (`replicas: null` defaulted)."""

from __future__ import annotations

import json

import pytest

from bench.hostile.bodies import valid
from bench.hostile.client import APPLY, MERGE, STRATEGIC, managed_path
from cluster.models import Cluster

pytestmark = pytest.mark.django_db
BASE = "/clusters/demo/api/v1/namespaces/default"
RCS = f"{BASE}/replicationcontrollers"
APPS = "/clusters/demo/apis/apps/v1/namespaces/default"
JSON = "application/json"
HUGE = "9" * 5000  # past Python's 4,300-digit limit for int()


@pytest.fixture
def cluster(client) -> Cluster:
    found = Cluster.objects.create(name="demo")
    answer = client.post(RCS, json.dumps(valid("ReplicationController", "rc")), content_type=JSON)
    assert answer.status_code == 201, answer.content[:300]
    return found


def revision() -> int:
    return Cluster.objects.get(name="demo").revision


def status_of(response, code: int) -> dict:
    assert response.status_code == code, response.content[:500]
    body = json.loads(response.content)
    assert body["kind"] == "Status" and body["code"] == code
    return body


def with_generation(literal: str) -> str:
    """A Pod whose metadata.generation (an int64) is the literal number `literal`."""
    text = json.dumps(valid("Pod", "p"))
    return text.replace('"metadata": {', f'"metadata": {{"generation": {literal}, ', 1)


@pytest.mark.parametrize("literal", [HUGE, "-" + HUGE, "1" + "0" * 400, str(2**64), "1e400", "-1e400"])
def test_numbers_past_int64_or_float64_are_refused_in_every_body(client, cluster, literal):
    before = revision()
    body = status_of(client.post(f"{BASE}/pods", with_generation(literal), content_type=JSON), 400)
    assert "cannot unmarshal number" in body["message"]
    patch = '{"spec":{"replicas":' + literal + "}}"
    for media in (MERGE, STRATEGIC, APPLY):
        assert client.patch(managed_path(f"{RCS}/rc", media), patch, content_type=media).status_code in (
            400,
            422,
        )
    assert client.patch(f"{RCS}/rc/scale", patch, content_type=MERGE).status_code in (400, 422)
    yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\n  generation: " + literal + "\n"
    body = status_of(client.post(f"{BASE}/pods", yaml, content_type="application/yaml"), 400)
    assert "cannot unmarshal" in body["message"]  # YAML 1.1 reads 1e400 (no dot) as a string
    body = status_of(client.post("/clusters/demo/apply", yaml, content_type="application/yaml"), 400)
    assert "cannot unmarshal" in body["message"]
    assert revision() == before


def test_nan_and_infinity_are_not_json(client, cluster):
    for literal in ("NaN", "Infinity", "-Infinity"):
        body = status_of(client.post(f"{BASE}/pods", with_generation(literal), content_type=JSON), 400)
        assert body["message"].endswith("looking for beginning of value")


@pytest.mark.parametrize("text", ["null", "5", '"text"', "true"])
@pytest.mark.parametrize("media", [MERGE, STRATEGIC])
def test_a_patch_that_is_not_an_object_is_a_400(client, cluster, text, media):
    before = revision()
    body = status_of(client.patch(f"{RCS}/rc", text, content_type=media), 400)
    assert body["message"] == "error decoding patch: a merge patch must be a JSON object"
    assert revision() == before


@pytest.mark.parametrize("text", ["[]", "[1, 2]", "7", "null", '"ls"'])
def test_the_consoles_endpoints_refuse_what_is_not_an_object(client, cluster, text):
    for path in ("/clusters/demo/ui/console", "/clusters/demo/ui/files"):
        answer = client.post(path, text, content_type=JSON)
        assert answer.status_code == 400, answer.content[:300]
        assert "must be a JSON object" in json.dumps(answer.json())


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        ("ReplicationController", RCS),
        ("ReplicaSet", f"{APPS}/replicasets"),
        ("Deployment", f"{APPS}/deployments"),
    ],
)
def test_replicas_null_is_defaulted_to_one_as_upstream(client, cluster, kind, url):
    body = valid(kind, "nulled")
    body["spec"]["replicas"] = None
    created = client.post(url, json.dumps(body), content_type=JSON)
    assert created.status_code == 201, created.content[:300]
    assert created.json()["spec"]["replicas"] == 1
    # A merge patch's null removes the field; the object is defaulted again, as kube-apiserver does.
    client.patch(f"{url}/nulled", json.dumps({"spec": {"replicas": 3}}), content_type=MERGE)
    patched = client.patch(f"{url}/nulled", json.dumps({"spec": {"replicas": None}}), content_type=MERGE)
    assert patched.status_code == 200 and patched.json()["spec"]["replicas"] == 1


def node_port_service(name: str, ports: int) -> dict:
    body = valid("Service", name)
    body["spec"]["type"] = "NodePort"
    body["spec"]["ports"] = [{"name": f"p{i}", "port": 1000 + i, "targetPort": 80} for i in range(ports)]
    return body


def test_one_service_cannot_take_the_whole_node_port_range(client, cluster):
    services = f"{BASE}/services"
    before = revision()
    many = json.dumps(node_port_service("greedy", 2768))
    body = status_of(client.post(services, many, content_type=JSON), 422)
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueTooMany",
            "message": "Too many: 2768: must have at most 100 items",
            "field": "spec.ports",
        }
    ]
    assert revision() == before
    most = client.post(services, json.dumps(node_port_service("most", 100)), content_type=JSON)
    assert most.status_code == 201, most.content[:300]
    assert len({port["nodePort"] for port in most.json()["spec"]["ports"]}) == 100
    # Growing past the bound by an update is refused too; the Service keeps its 100 ports.
    grown = node_port_service("most", 101)
    grown["metadata"]["resourceVersion"] = most.json()["metadata"]["resourceVersion"]
    status_of(client.put(f"{services}/most", json.dumps(grown), content_type=JSON), 422)
    later = client.post(services, json.dumps(node_port_service("later", 1)), content_type=JSON)
    assert later.status_code == 201, later.content[:300]


def test_flow_settings_take_only_their_types(client, cluster):
    for body in ({"on": "yes"}, {"on": 1}, {"on": "true"}, {"on": None}):
        answer = client.post("/clusters/demo/flow/step_mode", json.dumps(body), content_type=JSON)
        assert answer.status_code == 400 and answer.json() == {"error": '"on" must be true or false'}
    assert Cluster.objects.get(name="demo").step_mode is False
    for body in ({"pace_ms": 1e300}, {"pace_ms": True}, {"pace_ms": "250"}, {"pace_ms": [1]}):
        answer = client.post("/clusters/demo/flow/pace", json.dumps(body), content_type=JSON)
        assert answer.status_code == 400, body
    answer = client.post("/clusters/demo/flow/pace", '{"pace_ms": 1e400}', content_type=JSON)
    assert answer.status_code == 400
    answer = client.post("/clusters/demo/flow/next", json.dumps({"trace": {"a": 1}}), content_type=JSON)
    assert answer.status_code == 400 and answer.json() == {"error": "trace must be a trace id"}
    # A form has no JSON types: there the words true and false and digits are read.
    assert client.post("/clusters/demo/flow/step_mode", {"on": "yes"}).status_code == 400
    assert client.post("/clusters/demo/flow/step_mode", {"on": "true"}).json()["step_mode"] is True
    assert client.post("/clusters/demo/flow/pace", {"pace_ms": "250"}).json()["pace_ms"] == 250


def test_the_class_write_switch_takes_only_a_boolean(client, cluster):
    answer = client.post("/clusters/demo/policy", json.dumps({"class_may_write": "no"}), content_type=JSON)
    status_of(answer, 400)
    assert Cluster.objects.get(name="demo").class_may_write is False


def test_what_the_fuzzer_found_is_a_status_or_read_as_go_reads_it(client, cluster):
    """Each of these answered 500 before: a top-level null, a kind without a field table given an
    array for metadata, UTF-16 halves in JSON and YAML strings, a control character in YAML."""
    namespace = valid("Namespace", "nulled")
    namespace["spec"] = None  # Go's zero value: defaulted as if absent
    created = client.post("/clusters/demo/api/v1/namespaces", json.dumps(namespace), content_type=JSON)
    assert created.status_code == 201 and created.json()["spec"] == {"finalizers": ["kubernetes"]}
    classes = "/clusters/demo/apis/storage.k8s.io/v1/storageclasses"
    assert client.post(classes, json.dumps(valid("StorageClass", "sc")), content_type=JSON).status_code == 201
    before = revision()
    status_of(client.patch(f"{classes}/sc", '{"metadata": []}', content_type=MERGE), 422)
    assert revision() == before
    # A lone UTF-16 half becomes U+FFFD, a pair its character, as Go's decoder reads them.
    pod = valid("Pod", "p")
    pod["metadata"]["annotations"] = {"a": "x\ud800y", "b": "\ud83d\ude00"}
    text = json.dumps(pod)  # ASCII: the halves as \\u escapes
    stored = client.post(f"{BASE}/pods", text, content_type=JSON)
    assert stored.status_code == 201, stored.content[:300]
    assert stored.json()["metadata"]["annotations"] == {"a": "x\ufffdy", "b": "\U0001f600"}
    unknown = valid("Pod", "q")
    unknown["spec"]["x\ud800"] = 1  # an unknown field: dropped, named in a Warning header
    assert client.post(f"{BASE}/pods", json.dumps(unknown), content_type=JSON).status_code == 201
    applied = client.patch(
        managed_path(f"{BASE}/pods/p", APPLY),
        '{"metadata": {"labels": {"k": "\\ud800\\udc00"}}}',
        content_type=APPLY,
    )
    assert applied.status_code == 422  # a label value of U+10000 is invalid, and said so
    yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\x1f\n"
    status_of(client.post("/clusters/demo/apply", yaml, content_type="application/yaml"), 400)


@pytest.mark.parametrize(
    "directive", ["$setElementOrder/containers", "$retainKeys", "$deleteFromPrimitiveList/args"]
)
@pytest.mark.parametrize("value", [{"name": "c"}, 5, None, "x"])
def test_patch_directives_of_the_wrong_type_are_invalid(client, cluster, directive, value):
    before = revision()
    body = json.dumps({"spec": {"template": {"spec": {directive: value}}}})
    for media in (STRATEGIC, APPLY):
        answer = status_of(client.patch(managed_path(f"{RCS}/rc", media), body, content_type=media), 422)
        assert answer["message"].startswith("invalid patch format of ")
    assert revision() == before


def test_nulls_in_lists_are_gos_zero_values_and_invalid(client, cluster):
    for where, fields in (
        (
            "ownerReferences",
            [
                "metadata.ownerReferences.apiVersion",
                "metadata.ownerReferences.kind",
                "metadata.ownerReferences.name",
                "metadata.ownerReferences.uid",
            ],
        ),
        ("finalizers", ["metadata.finalizers"]),
    ):
        pod = valid("Pod", "nulls")
        pod["metadata"][where] = [None]
        body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type=JSON), 422)
        assert [cause["field"] for cause in body["details"]["causes"]] == fields
    pod = valid("Pod", "nulls")
    pod["spec"]["volumes"] = [None]
    body = status_of(client.post(f"{BASE}/pods", json.dumps(pod), content_type=JSON), 422)
    assert [cause["field"] for cause in body["details"]["causes"]] == [
        "spec.volumes[0].name",
        "spec.volumes[0]",
    ]


@pytest.mark.parametrize("metadata", [7, "x", [1], True])
def test_a_server_side_apply_that_creates_with_metadata_of_the_wrong_type_is_refused(
    client, cluster, metadata
):
    before = revision()
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"a": "b"}}
    answer = client.patch(f"{BASE}/configmaps/missing", json.dumps(body), content_type=APPLY)
    assert answer.status_code in (400, 422), answer.content[:300]
    assert json.loads(answer.content)["kind"] == "Status"
    assert revision() == before

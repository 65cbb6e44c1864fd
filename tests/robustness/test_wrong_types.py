"""Property: a wrong JSON type anywhere in any kind's body is a Status with the right code, never a
500, and writes nothing, whichever way it arrives: create, update, each patch type, /apply.

Create and update answer 400 (the decoder's BadRequest); a patch whose result has a wrong type
422 Invalid on the field `patch`; /apply 400 with the error at its document and line.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bench.hostile.bodies import KINDS, field_paths, put, valid
from bench.hostile.client import APPLY, JSON_PATCH, MERGE, STRATEGIC, Client
from cluster.apiserver.typecheck import fits
from cluster.models import Cluster
from k8s.yamldocs import integral_as_json

pytestmark = pytest.mark.django_db
PATHS = Client("http://127.0.0.1", "demo")
FIELDS = [
    (kind, path, spec)
    for kind in KINDS
    for path, spec in field_paths(kind)
    if path not in (("kind",), ("apiVersion",))  # these choose the kind: another 400 answers them
]
JSON_VALUES = st.recursive(
    st.integers() | st.booleans() | st.text(max_size=8) | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
VERBS = ("create", "update", "merge", "strategic", "json-patch", "apply-patch", "apply")
EXPECTED = {"create": 400, "update": 400, "apply": 400}  # the patches: 422
YAML_VERBS = ("apply", "apply-patch")  # their bodies are YAML: an integral float is an integer there


def as_yaml_reads(value: object) -> object:
    if isinstance(value, float):
        return integral_as_json(value)
    if isinstance(value, list):
        return [as_yaml_reads(item) for item in value]
    if isinstance(value, dict):
        return {key: as_yaml_reads(item) for key, item in value.items()}
    return value


def wrong_for(field: tuple) -> st.SearchStrategy:
    spec = field[2]
    return st.tuples(st.just(field), JSON_VALUES.filter(lambda value: not fits(spec, value)))


@pytest.fixture
def victims(client) -> dict[str, str]:
    """One stored object per kind for the verbs that change an existing object."""
    Cluster.objects.create(name="demo")
    urls = {}
    for kind in KINDS:
        name = f"victim-{kind.lower()}"
        answer = client.post(PATHS.path(kind), json.dumps(valid(kind, name)), content_type="application/json")
        assert answer.status_code == 201, answer.content[:300]
        urls[kind] = PATHS.path(kind, "default", name)
    return urls


def send(client, verb: str, kind: str, url: str, path: tuple, value: object):
    name = url.rsplit("/", 1)[1]
    if verb == "create":
        body = put(valid(kind, "created"), path, value)
        return client.post(PATHS.path(kind), json.dumps(body), content_type="application/json")
    if verb == "apply":
        body = put(valid(kind, "applied"), path, value)
        return client.post("/clusters/demo/apply", json.dumps(body), content_type="application/yaml")
    current = json.loads(client.get(url).content)
    changed = put(json.loads(json.dumps(current)), path, value)
    top = path[0]
    if verb == "update":
        return client.put(url, json.dumps(changed), content_type="application/json")
    if verb == "json-patch":
        ops = [{"op": "add", "path": f"/{top}", "value": changed[top]}]
        return client.patch(url, json.dumps(ops), content_type=JSON_PATCH)
    if verb == "apply-patch":
        body = put(valid(kind, name), path, value)
        return client.patch(url, json.dumps(body), content_type=APPLY)
    media = MERGE if verb == "merge" else STRATEGIC
    return client.patch(url, json.dumps({top: changed[top]}), content_type=media)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.sampled_from(FIELDS).flatmap(wrong_for), verb=st.sampled_from(VERBS))
def test_a_wrong_type_anywhere_is_a_status_and_writes_nothing(client, victims, case, verb):
    (kind, path, spec), value = case
    assume(verb not in YAML_VERBS or not fits(spec, as_yaml_reads(value)))
    before = Cluster.objects.get(name="demo").revision
    response = send(client, verb, kind, victims[kind], path, value)
    body = json.loads(response.content)
    assert body.get("kind") == "Status", response.content[:300]
    assert response.status_code == body["code"] == EXPECTED.get(verb, 422), body
    assert Cluster.objects.get(name="demo").revision == before

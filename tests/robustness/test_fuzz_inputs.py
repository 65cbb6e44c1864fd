"""A fuzzer over what a visitor can send: JSON and YAML bodies, protobuf bodies and websocket
frames. Whatever arrives, the answer is never a 500: an API error is a Kubernetes Status with a
4xx code, a refused write changes nothing, and a socket answers and stays open.

Hypothesis runs derandomized (a fixed seed) with small example counts, so the suite's budget stays
fixed (about 20 s); `manage.py bench_abuse` sends many more against a live server.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.hostile.bodies import KINDS, valid
from bench.hostile.client import APPLY, JSON_PATCH, MERGE, STRATEGIC, Client, managed_path
from cluster.models import Cluster
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db
PATHS = Client("http://127.0.0.1", "demo")
PROTOBUF = "application/vnd.kubernetes.protobuf"
CAPTURED = Path(__file__).resolve().parents[1] / "fixtures" / "protobuf"
FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# Numbers at the edges: past int32, int64, float64 and Python's 4,300 digits.
class Literal(str):
    """A number written as this text in the body (JSON has no way to carry it otherwise)."""


EDGE_NUMBERS = st.sampled_from(
    [2**31, 2**63, -(2**63) - 1, 2**64, 10**400, 1e308, 0.5, -1]
) | st.sampled_from(
    [Literal("9" * 5000), Literal("-" + "9" * 5000), Literal("1e400"), Literal("-1e400"), Literal("NaN")]
)
SCALARS = st.none() | st.booleans() | st.integers() | EDGE_NUMBERS | st.text(max_size=6)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["$patch", "$retainKeys", "$setElementOrder/containers", "name", "x"])
            | st.text(max_size=4),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
# Where in a valid body a value goes: top-level fields, spec, metadata and a container.
SPOTS = st.sampled_from(
    [
        ("spec",),
        ("metadata",),
        ("metadata", "labels"),
        ("metadata", "annotations"),
        ("metadata", "generation"),
        ("metadata", "ownerReferences"),
        ("metadata", "finalizers"),
        ("spec", "replicas"),
        ("spec", "selector"),
        ("spec", "template"),
        ("spec", "containers"),
        ("spec", "ports"),
        ("spec", "template", "spec", "containers"),
        ("status",),
        ("data",),
    ]
)
VERBS = ("create", "update", MERGE, STRATEGIC, JSON_PATCH, APPLY, "apply", "yaml-create")


def _number_text(value: object) -> str:
    """JSON text for any value, Literal numbers written as they are (1e400, 5,000 digits)."""
    if isinstance(value, Literal):
        return str.__str__(value)
    if isinstance(value, bool | int | float | str) or value is None:
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(_number_text(item) for item in value) + "]"
    return "{" + ",".join(f"{json.dumps(key)}:{_number_text(item)}" for key, item in value.items()) + "}"


def _place(body: dict, spot: tuple, value: object) -> dict:
    cursor = body
    for key in spot[:-1]:
        nxt = cursor.get(key)
        if not isinstance(nxt, dict):
            nxt = cursor[key] = {}
        cursor = nxt
    cursor[spot[-1]] = value
    return body


def _assert_status(response, before: int) -> None:
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        body = json.loads(response.content)
        assert body.get("kind") == "Status" and body["code"] == response.status_code, body
        assert Cluster.objects.get(name="demo").revision == before


@pytest.fixture
def victims(client) -> dict[str, str]:
    Cluster.objects.create(name="demo")
    urls = {}
    for kind in KINDS:
        name = f"victim-{kind.lower()}"
        answer = client.post(PATHS.path(kind), json.dumps(valid(kind, name)), content_type="application/json")
        assert answer.status_code == 201, answer.content[:300]
        urls[kind] = PATHS.path(kind, "default", name)
    return urls


@settings(FUZZ, max_examples=400)
@given(kind=st.sampled_from(KINDS), spot=SPOTS, value=JSON_VALUES, verb=st.sampled_from(VERBS))
def test_json_and_yaml_bodies_never_answer_500(client, victims, kind, spot, value, verb):
    client.raise_request_exception = False
    before = Cluster.objects.get(name="demo").revision
    url = victims[kind]
    body = _place(
        valid(kind, "fuzzed" if verb in ("create", "apply", "yaml-create") else url.rsplit("/", 1)[1]),
        spot,
        value,
    )
    text = _number_text(body)
    if verb == "create":
        response = client.post(PATHS.path(kind), text, content_type="application/json")
    elif verb == "yaml-create":
        response = client.post(PATHS.path(kind), text, content_type="application/yaml")
    elif verb == "apply":
        response = client.post("/clusters/demo/apply", text, content_type="application/yaml")
    elif verb == "update":
        current = json.loads(client.get(url).content)
        response = client.put(
            url, _number_text(_place(current, spot, value)), content_type="application/json"
        )
    elif verb == JSON_PATCH:
        ops = [
            {"op": "add", "path": "/" + "/".join(spot), "value": value},
            {"op": "replace", "path": "/x", "value": value},
        ]
        response = client.patch(url, _number_text(ops[: 1 + (len(spot) % 2)]), content_type=JSON_PATCH)
    else:
        response = client.patch(url, _number_text(_place({}, spot, value)), content_type=verb)
    _assert_status(response, before)


YAML_PIECES = st.sampled_from(
    [
        "apiVersion: v1\n",
        "kind: Pod\n",
        "kind: [\n",
        "metadata:\n",
        "  name: y\n",
        "  name: *a\n",
        "  labels: {a: 1}\n",
        "spec:\n",
        "  containers:\n",
        "  - name: c\n",
        "    image: nginx\n",
        "  - null\n",
        "  replicas: " + "9" * 5000 + "\n",
        "  replicas: 0x" + "f" * 600 + "\n",
        "  replicas: .inf\n",
        "  replicas: .nan\n",
        "  replicas: 1_0\n",
        "  replicas: 1:30\n",
        "---\n",
        "  ? [a]\n  : b\n",
        "<<: {a: 1}\n",
        "\t\n",
        "!!python/object:os.system\n",
        "%YAML 1.2\n",
        "  generation: -0b" + "1" * 200 + "\n",
        "  a: !!binary AAAA\n",
        "  t: 2001-12-14\n",
        "\x00",
        "\ufeff",
    ]
)


@settings(FUZZ, max_examples=150)
@given(pieces=st.lists(YAML_PIECES, min_size=1, max_size=12), noise=st.text(max_size=20))
def test_yaml_text_never_answers_500(client, victims, pieces, noise):
    client.raise_request_exception = False
    before = Cluster.objects.get(name="demo").revision
    text = "".join(pieces) + noise
    _assert_status(client.post("/clusters/demo/apply", text, content_type="application/yaml"), before)
    _assert_status(client.post(PATHS.path("Pod"), text, content_type="application/yaml"), before)
    url = victims["ReplicationController"]
    _assert_status(client.patch(managed_path(url, APPLY), text, content_type=APPLY), before)


def _captured() -> list[bytes]:
    return [path.read_bytes() for path in sorted(CAPTURED.glob("deployment-*.bin"))]


@st.composite
def protobuf_bodies(draw) -> bytes:
    """A captured kubectl body with bytes flipped, inserted, cut or appended."""
    data = bytearray(draw(st.sampled_from(_captured())))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "insert", "cut", "truncate"]))
        if action == "flip" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        elif action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=8))
        elif action == "cut":
            del data[where : where + draw(st.integers(1, 16))]
        else:
            del data[max(where, 4) :]
    return bytes(data)


@settings(FUZZ, max_examples=300)
@given(body=protobuf_bodies() | st.binary(max_size=64).map(lambda raw: b"k8s\x00" + raw))
def test_protobuf_bodies_never_answer_500(client, victims, body):
    client.raise_request_exception = False
    before = Cluster.objects.get(name="demo").revision
    response = client.post(PATHS.path("Deployment"), body, content_type=PROTOBUF)
    if response.status_code < 400:  # a mutation that still decodes is a fair write
        before = Cluster.objects.get(name="demo").revision
        client.delete(PATHS.path("Deployment", "default", response.json()["metadata"]["name"]))
        return
    _assert_status(response, before)


FRAMES = (
    st.binary(min_size=1, max_size=40).map(lambda data: {"bytes_data": data})
    | st.text(min_size=1, max_size=40).map(lambda text: {"text_data": text})
    | JSON_VALUES.map(lambda value: {"text_data": _number_text(value)})
    | st.fixed_dictionaries(
        {
            "action": st.sampled_from(["next", "pace", "step_mode", "snapshot", "dance", None]),
            "on": SCALARS,
            "pace_ms": SCALARS,
            "trace": SCALARS,
        }
    ).map(lambda value: {"text_data": _number_text(value)})
)


@pytest.mark.django_db(transaction=True)
@settings(FUZZ, max_examples=8)
@given(frames=st.lists(FRAMES, min_size=15, max_size=15))
def test_websocket_frames_are_answered_and_the_socket_stays_open(demo, frames, caplog):
    caplog.set_level(logging.WARNING)

    async def scenario() -> None:
        communicator, _ = await connect()
        try:
            for frame in frames:
                await communicator.send_to(**frame)
            await drain(communicator)
            await communicator.send_json_to({"action": "snapshot"})
            answer = await communicator.receive_output(timeout=5)
            assert answer["type"] == "websocket.send", answer  # still open: the snapshot came
        finally:
            await communicator.disconnect()

    async_to_sync(scenario)()
    assert not [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]

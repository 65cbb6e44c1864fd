"""The ASGI handler: a request's middleware and view run in one trip to a kept thread."""

from __future__ import annotations

import json

import pytest
from asgiref.testing import ApplicationCommunicator

from kubesim.asgi import django_asgi_app
from tests.support.auth import teacher_headers
from tests.support.demo import demo  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)
PODS = "/clusters/demo/api/v1/namespaces/default/pods"


async def request(method: str, path: str, body: dict | None = None) -> tuple[int, dict, dict]:
    data = json.dumps(body).encode() if body is not None else b""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            *((k.lower().encode(), v.encode()) for k, v in teacher_headers().items()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    communicator = ApplicationCommunicator(django_asgi_app, scope)
    await communicator.send_input({"type": "http.request", "body": data, "more_body": False})
    start = await communicator.receive_output(10)
    chunks = []
    while True:
        message = await communicator.receive_output(10)
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    await communicator.wait(10)
    headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
    return start["status"], headers, json.loads(b"".join(chunks))


def pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
    }


async def test_requests_pass_through_the_middleware_and_reuse_a_kept_thread(demo):  # noqa: F811
    handler = django_asgi_app.application
    made = handler.threads.made
    status, headers, created = await request("POST", PODS, pod("web-1"))
    assert status == 201 and created["metadata"]["name"] == "web-1"
    # Django's middleware ran (security headers, the clickjacking guard), in the same single trip.
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    for _ in range(3):
        status, _, listed = await request("GET", PODS)
        assert status == 200 and [p["metadata"]["name"] for p in listed["items"]] == ["web-1"]
    # One after another, the requests shared one kept thread (and its database connection).
    assert handler.threads.made - made <= 1 and handler.threads.idle


async def test_errors_come_back_as_kubernetes_status(demo):  # noqa: F811
    status, _, body = await request("GET", f"{PODS}/missing")
    assert status == 404
    assert body["kind"] == "Status" and body["message"] == 'pods "missing" not found'

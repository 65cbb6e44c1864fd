"""One access rule on every path: who sees a cluster, who may change it, and in what words."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from cluster.apiserver import service as api
from cluster.auth.access import sandbox_token
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from kubesim.asgi import application
from tests.conftest import REPO
from tests.support.auth import teacher_ws_headers

pytestmark = pytest.mark.django_db(transaction=True)
PODS = "/clusters/{}/api/v1/namespaces/default/pods"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
}


@pytest.fixture
def demo():
    cluster = create_demo("demo", pace_ms=0)
    yield cluster
    runtime.forget("demo")


@pytest.fixture
def sandbox(db):
    owner = User.objects.create_user("student-abc")
    return Cluster.objects.create(name="lab-0123456789", public=False, owner=owner)


def post(client: Client, cluster: str, body: dict = POD, **headers):
    return client.post(
        PODS.format(cluster), json.dumps(body), content_type="application/json", headers=headers
    )


EVERY_PATH = [
    "/clusters/{}/version",
    "/clusters/{}/api",
    "/clusters/{}/apis",
    "/clusters/{}/api/v1",
    "/clusters/{}/apis/apps/v1",
    "/clusters/{}/openapi/v3",
    "/clusters/{}/openapi/v3/api/v1",
    "/clusters/{}/api/v1/nodes",
    "/clusters/{}/api/v1/namespaces/default/pods?watch=1",
    "/clusters/{}/snapshot",
    "/clusters/{}/flow/steps",
    "/clusters/{}/policy",
    "/clusters/{}/kubeconfig",
    "/clusters/{}/",
]


@pytest.mark.parametrize("path", EVERY_PATH)
def test_a_sandbox_the_caller_may_not_see_is_404_on_every_path_like_a_missing_one(sandbox, path):
    hidden = Client().get(path.format(sandbox.name))
    missing = Client().get(path.format("lab-doesnotexist"))
    assert hidden.status_code == missing.status_code == 404
    if hidden["Content-Type"].startswith("application/json"):
        assert hidden.json()["message"] == f'clusters "{sandbox.name}" not found'


def test_staff_see_every_clusters_page_and_api(sandbox):
    teacher = Client()
    teacher.force_login(User.objects.create_user("teacher", is_staff=True))
    assert teacher.get(f"/clusters/{sandbox.name}/").status_code == 200
    assert teacher.get(f"/clusters/{sandbox.name}/version").status_code == 200


def test_anonymous_writes_to_the_demo_are_403_in_kube_apiservers_words(demo):
    created = post(Client(), "demo")
    assert created.status_code == 403
    assert created.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods is forbidden: User "system:anonymous" cannot create resource "pods" in API group "" '
        'in the namespace "default"',
        "reason": "Forbidden",
        "details": {"kind": "pods"},
        "code": 403,
    }
    deleted = Client().delete("/clusters/demo/api/v1/nodes/node1")
    assert deleted.json()["message"] == (
        'nodes "node1" is forbidden: User "system:anonymous" cannot delete resource "nodes" in API group "" '
        "at the cluster scope"
    )
    scaled = Client().patch(
        "/clusters/demo/apis/apps/v1/namespaces/default/deployments/web/scale",
        "{}",
        content_type="application/merge-patch+json",
    )
    assert scaled.json()["message"] == (
        'deployments.apps "web" is forbidden: User "system:anonymous" cannot patch resource '
        '"deployments/scale" in API group "apps" in the namespace "default"'
    )
    assert len(api.list_objects(demo, "Node")[0]) == 3
    assert Client().get("/clusters/demo/api/v1/nodes").status_code == 200  # reads stay open


def test_an_unknown_bearer_token_is_401(demo):
    response = Client().get("/clusters/demo/api/v1/nodes", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401 and response.json()["reason"] == "Unauthorized"


def test_a_sandbox_token_writes_to_its_sandbox_only(sandbox, demo):
    token = {"Authorization": f"Bearer {sandbox_token(sandbox)}"}
    assert post(Client(enforce_csrf_checks=True), sandbox.name, **token).status_code == 201
    other = Cluster.objects.create(
        name="lab-other", public=False, owner=User.objects.create_user("student-other")
    )
    assert post(Client(), other.name, **token).status_code == 404
    refused = post(Client(), "demo", **token)
    assert refused.status_code == 403 and 'User "student-abc" cannot create' in refused.json()["message"]
    forged = sandbox_token(sandbox)[:-1] + ("0" if sandbox_token(sandbox)[-1] != "0" else "1")
    assert post(Client(), sandbox.name, Authorization=f"Bearer {forged}").status_code == 401


def test_a_sandbox_tokens_request_reads_its_sandbox_once(sandbox):
    token = {"Authorization": f"Bearer {sandbox_token(sandbox)}"}
    with CaptureQueriesContext(connection) as queries:
        assert post(Client(), sandbox.name, **token).status_code == 201
    by_name = [
        q["sql"]
        for q in queries.captured_queries
        if 'FROM "cluster_cluster"' in q["sql"] and '"name" =' in q["sql"]
    ]
    assert len(by_name) == 1  # the token's check; the request's cluster is that row


def test_the_presenter_link_signs_the_teacher_in_and_the_page_shows_how_to_write(demo):
    from cluster.auth.access import presenter_token

    viewer = Client()
    page = viewer.get("/clusters/demo/").content.decode()
    assert 'id="readonly-note"' in page and 'id="class-may-write"' not in page
    assert viewer.get("/presenter/?token=wrong").status_code == 403
    teacher = Client(enforce_csrf_checks=True)
    response = teacher.get(f"/presenter/?token={presenter_token()}")
    assert response.status_code == 302 and response["Location"] == "/clusters/demo/"
    page = teacher.get("/clusters/demo/")
    html = page.content.decode()
    assert 'id="readonly-note"' not in html and 'id="class-may-write"' in html
    csrf = page.cookies["csrftoken"].value
    assert post(teacher, "demo", **{"X-CSRFToken": csrf}).status_code == 201
    assert post(teacher, "demo", {**POD, "metadata": {"name": "forged"}}).status_code == 403  # no CSRF


def test_the_class_may_write_switch_is_the_teachers_and_opens_writes_to_the_class(demo, teacher_client):
    student = Client(enforce_csrf_checks=True)
    page = student.get("/clusters/demo/")
    csrf = {"X-CSRFToken": page.cookies["csrftoken"].value}
    switch = student.post(
        "/clusters/demo/policy", {"class_may_write": True}, "application/json", headers=csrf
    )
    assert switch.status_code == 403
    assert post(student, "demo", **csrf).status_code == 403
    pace = student.post("/clusters/demo/flow/pace", {"pace_ms": 5}, "application/json", headers=csrf)
    assert pace.status_code == 403
    assert (
        pace.json()["message"]
        == 'forbidden: User "system:anonymous" cannot post path "/clusters/demo/flow/pace"'
    )
    on = teacher_client.post("/clusters/demo/policy", {"class_may_write": True}, "application/json")
    assert on.status_code == 200 and on.json()["class_may_write"] is True
    assert post(student, "demo", **csrf).status_code == 201
    assert (
        student.post("/clusters/demo/flow/pace", {"pace_ms": 5}, "application/json", headers=csrf).status_code
        == 200
    )
    assert (
        post(Client(enforce_csrf_checks=True), "demo", {**POD, "metadata": {"name": "no-csrf"}}).status_code
        == 403
    )


def test_the_teacher_changes_the_quota_and_bad_values_are_400(demo, teacher_client):
    bad = teacher_client.post("/clusters/demo/policy", {"quota": {"pods": -1}}, "application/json")
    assert bad.status_code == 400
    ok = teacher_client.post("/clusters/demo/policy", {"quota": {"pods": 1}}, "application/json")
    assert ok.json()["quota"]["pods"] == 1
    assert post(teacher_client, "demo").status_code == 201
    over = post(teacher_client, "demo", {**POD, "metadata": {"name": "second"}})
    assert over.status_code == 403
    assert over.json()["message"] == (
        'pods "second" is forbidden: exceeded quota: classroom-quota, requested: pods=1, used: pods=1, '
        "limited: pods=1"
    )


def test_the_class_is_rate_limited_with_retry_after_and_the_teacher_is_not(demo, teacher_client, settings):
    settings.KUBESIM_QUOTA = {"writes": 2, "window": 30}
    Cluster.objects.filter(pk=demo.pk).update(class_may_write=True)
    student = Client()
    codes = [post(student, "demo", {**POD, "metadata": {"name": f"s{i}"}}).status_code for i in range(3)]
    assert codes == [201, 201, 429]
    limited = student.delete(PODS.format("demo") + "/s0")
    assert limited.status_code == 429 and 1 <= int(limited["Retry-After"]) <= 30
    for i in range(4):
        assert post(teacher_client, "demo", {**POD, "metadata": {"name": f"t{i}"}}).status_code == 201


def test_an_rc_of_a_billion_replicas_creates_no_more_pods_than_the_quota(demo, teacher_client):
    Cluster.objects.filter(pk=demo.pk).update(quota={"pods": 7})
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "huge"},
        "spec": {
            "replicas": 10**9,
            "selector": {"app": "huge"},
            "template": {"metadata": {"labels": {"app": "huge"}}, "spec": POD["spec"]},
        },
    }
    response = teacher_client.post(
        "/clusters/demo/api/v1/namespaces/default/replicationcontrollers", json.dumps(rc), "application/json"
    )
    assert response.status_code == 201
    async_to_sync(runtime.run_until_idle)("demo")
    async_to_sync(runtime.run_until_idle)("demo")
    pods, _ = api.list_objects(demo, "Pod")
    assert len(pods) == 7
    events, _ = api.list_objects(demo, "Event")
    failed = [e for e in events if e["reason"] == "FailedCreate"]
    assert failed and failed[0]["type"] == "Warning"
    assert failed[0]["message"].startswith('Error creating: pods "huge-')
    assert failed[0]["message"].endswith(
        "is forbidden: exceeded quota: classroom-quota, requested: pods=1, used: pods=7, limited: pods=7"
    )


def socket(path: str, headers: list) -> WebsocketCommunicator:
    return WebsocketCommunicator(application, path, headers=headers)


async def connected(communicator: WebsocketCommunicator) -> bool:
    ok, _ = await communicator.connect()
    if ok:
        assert (await communicator.receive_json_from(timeout=5))["type"] == "snapshot"
    return ok


HOST = [(b"host", b"127.0.0.1:8000")]


def test_browser_sockets_must_come_from_the_served_origin_and_token_sockets_drive(demo):
    async def scenario():
        for origin in (b"http://127.0.0.1:8001", b"https://127.0.0.1:8000", b"http://evil.example"):
            foreign = socket("/ws/clusters/demo/", [*HOST, (b"origin", origin)])
            assert not await connected(foreign)
        same = socket("/ws/clusters/demo/", [*HOST, (b"origin", b"http://127.0.0.1:8000")])
        assert await connected(same)
        await same.send_json_to({"action": "pace", "pace_ms": 5})
        refusal = await same.receive_json_from(timeout=5)
        assert refusal["type"] == "error" and 'User "system:anonymous" cannot post' in refusal["message"]
        await same.disconnect()
        kubectl = socket("/ws/clusters/demo/", [*HOST, *teacher_ws_headers()])  # no Origin: by token
        assert await connected(kubectl)
        await kubectl.send_json_to({"action": "pace", "pace_ms": 5})
        while not await kubectl.receive_nothing(timeout=0.5):
            assert (await kubectl.receive_json_from())["type"] != "error"
        await kubectl.disconnect()

    async_to_sync(scenario)()
    assert Cluster.objects.get(pk=demo.pk).pace_ms == 5


def test_a_socket_without_origin_is_not_signed_in_by_a_session_cookie(demo):
    teacher = Client()
    teacher.force_login(User.objects.create_user("teacher", is_staff=True))
    cookie = f"sessionid={teacher.cookies['sessionid'].value}".encode()

    async def scenario():
        sock = socket("/ws/clusters/demo/", [*HOST, (b"cookie", cookie)])
        assert await connected(sock)
        await sock.send_json_to({"action": "step_mode", "on": True})
        assert (await sock.receive_json_from(timeout=5))["type"] == "error"
        await sock.disconnect()

    async_to_sync(scenario)()
    assert Cluster.objects.get(pk=demo.pk).step_mode is False


def test_security_headers_on_pages_api_and_static_files(demo):
    async def fetch(path: str) -> dict:
        from asgiref.testing import ApplicationCommunicator

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1:8000")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }
        app = ApplicationCommunicator(application, scope)
        await app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await app.receive_output(10)
        while (await app.receive_output(10)).get("more_body"):
            pass
        return {k.decode().lower(): v.decode() for k, v in start["headers"]}

    for path in ("/clusters/demo/", "/static/kubesim/app.js", "/clusters/demo/version"):
        headers = async_to_sync(fetch)(path)
        csp = headers["content-security-policy"]
        script = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
        assert script.strip() == "script-src 'self'", path
        assert "frame-ancestors 'none'" in csp and "ws://127.0.0.1:8000" in csp
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"


def test_the_state_directory_holds_a_generated_secret_key_of_mode_0600(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env["KUBESIM_STATE_DIR"] = str(tmp_path / "state")
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    run = [
        sys.executable,
        "-c",
        f"import django, os; os.environ['DJANGO_SETTINGS_MODULE']='kubesim.settings'; {code}",
    ]
    first = subprocess.run(run, cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout.strip()
    again = subprocess.run(run, cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout.strip()
    key_file = tmp_path / "state" / "secret_key"
    assert first == again == key_file.read_text().strip() and len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    fixed = subprocess.run(run, cwd=REPO, env={**env, "SECRET_KEY": "x" * 60}, capture_output=True, text=True)
    assert fixed.stdout.strip() == "x" * 60


def test_rotating_the_presenter_token_ends_the_old_token_and_its_sessions(demo, tmp_path, settings):
    from django.core.management import call_command

    from cluster.auth.access import presenter_token

    settings.KUBESIM_STATE_DIR = tmp_path
    old = presenter_token()
    teacher = Client(enforce_csrf_checks=True)
    teacher.get(f"/presenter/?token={old}")
    assert 'id="class-may-write"' in teacher.get("/clusters/demo/").content.decode()
    call_command("presenter_token", "--rotate", stdout=open(os.devnull, "w"))  # noqa: SIM115
    new = presenter_token()
    assert new != old
    assert post(Client(), "demo", Authorization=f"Bearer {old}").status_code == 401
    assert post(Client(), "demo", Authorization=f"Bearer {new}").status_code == 201
    assert 'id="readonly-note"' in teacher.get("/clusters/demo/").content.decode()

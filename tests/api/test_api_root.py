"""One address per API server: the root paths on the API port are the caller's cluster's, the
health endpoints print what kube-apiserver prints, and every API error is a Status."""

from __future__ import annotations

import json

import pytest
import yaml
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.contrib.auth.models import User
from django.test import Client

from cluster.auth.access import presenter_token, sandbox_token, teacher_token
from cluster.auth.addressing import cluster_named_by
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from kubesim.apiroot import at_cluster, serve_api_on
from kubesim.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)
API_PORT = 16443  # marked as the API listener below; nothing listens on it


@pytest.fixture
def demo():
    cluster = create_demo("demo", pace_ms=0)
    yield cluster
    runtime.forget("demo")


@pytest.fixture
def sandbox(db):
    owner = User.objects.create_user("student-abc")
    return Cluster.objects.create(name="lab-0123456789", public=False, owner=owner)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def fetch(path: str, token: str = "", method: str = "GET", port: int = API_PORT) -> tuple[int, dict, bytes]:
    """One request through the whole ASGI application, as Daphne hands it over on `port`."""
    serve_api_on(API_PORT)
    path, _, query = path.partition("?")
    headers = [(b"host", f"127.0.0.1:{port}".encode())]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "https",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", port),
    }

    async def run():
        app = ApplicationCommunicator(application, scope)
        await app.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await app.receive_output(10)
        body = b""
        while True:
            message = await app.receive_output(10)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body

    return async_to_sync(run)()


# -- which cluster ---------------------------------------------------------------------------------
def test_a_token_of_the_form_cluster_dot_hmac_names_its_cluster_anything_else_the_demo():
    assert cluster_named_by("Bearer lab-0a1.0123456789abcdef0123456789abcdef01234567") == "lab-0a1"
    assert cluster_named_by("bearer demo-2." + "f" * 40) == "demo-2"
    assert cluster_named_by("Bearer uKF_sUHPZ0dt8K3jI7BPIXMKdnc84Zsl-iifn71tPVs") == "demo"
    assert cluster_named_by("") == cluster_named_by("Basic eDp5") == "demo"
    assert cluster_named_by("Bearer ../etc." + "0" * 40) == "demo"


def test_root_paths_become_the_callers_clusters_paths_and_others_are_not_served():
    scope = {"type": "http", "path": "/api/v1/pods", "raw_path": b"/api/v1/pods", "headers": []}
    routed = at_cluster({**scope, "headers": [(b"authorization", b"Bearer lab-x." + b"a" * 40)]})
    assert (
        routed["path"] == "/clusters/lab-x/api/v1/pods"
        and routed["raw_path"] == b"/clusters/lab-x/api/v1/pods"
    )
    for path in ("/healthz", "/readyz/etcd", "/livez", "/version", "/apis", "/openapi/v3/api/v1", "/metrics"):
        assert at_cluster({**scope, "path": path})["path"] == f"/clusters/demo{path}"
    assert at_cluster({**scope, "path": "/clusters/demo/api/v1/pods"})["path"] == "/clusters/demo/api/v1/pods"
    for path in ("/static/kubesim/app.js", "/admin/", "/join/", "/apiary", "/clusters/demo"):
        assert at_cluster({**scope, "path": path}) is None, path


# -- the API port, end to end in process -----------------------------------------------------------
def test_the_root_address_serves_the_teachers_demo_by_the_presenter_token_or_a_cluster_token(demo):
    for token in (presenter_token(), teacher_token("demo")):
        status, _, body = fetch("/api/v1/namespaces/default/pods", token)
        assert status == 200 and json.loads(body)["kind"] == "PodList"
    status, _, body = fetch("/api/v1/nodes")  # anonymous: the demo, read-only
    assert status == 200 and {n["metadata"]["name"] for n in json.loads(body)["items"]} >= {"node1", "node2"}


def test_a_students_token_addresses_their_sandbox_at_the_root(demo, sandbox):
    status, _, body = fetch("/api/v1/namespaces/default/pods", sandbox_token(sandbox))
    assert status == 200 and json.loads(body)["items"] == []
    status, _, body = fetch("/version", sandbox_token(sandbox))
    assert status == 200 and json.loads(body)["gitVersion"] == "v1.33.1"
    forged = f"{sandbox.name}.{'0' * 40}"
    status, _, body = fetch("/api/v1/pods", forged)
    assert status == 401 and json.loads(body)["reason"] == "Unauthorized"


def test_a_teachers_cluster_token_addresses_that_cluster(demo, sandbox):
    status, _, body = fetch("/healthz?verbose", teacher_token(sandbox.name))
    assert status == 200 and body.decode().endswith("healthz check passed\n")
    status, _, body = fetch("/api/v1/namespaces/default/pods/web", teacher_token(sandbox.name))
    assert status == 404 and json.loads(body)["message"] == 'pods "web" not found'


def test_any_other_path_on_the_api_port_is_a_404_status_never_html(demo):
    for path in ("/static/kubesim/app.js", "/join/", "/nosuch", "/clusters/demo/nosuch"):
        status, headers, body = fetch(path, presenter_token())
        assert status == 404 and headers["content-type"] == "application/json", path
        assert json.loads(body) == {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "the server could not find the requested resource",
            "reason": "NotFound",
            "details": {},
            "code": 404,
        }


def test_a_wrong_method_at_the_root_is_a_405_status(demo):
    status, _, body = fetch("/version", presenter_token(), method="DELETE")
    assert status == 405 and json.loads(body)["reason"] == "MethodNotAllowed"
    assert json.loads(body)["message"] == "the server does not allow this method on the requested resource"


def test_the_browsers_port_keeps_its_pages(demo):
    status, headers, _ = fetch("/clusters/demo/", port=18000)
    assert status == 200 and headers["content-type"].startswith("text/html")
    status, _, _ = fetch("/api/v1/nodes", port=18000)  # the root address is the API port's only
    assert status == 404


# -- health ------------------------------------------------------------------------------------------
def test_healthz_livez_readyz_print_as_kube_apiserver(demo):
    client = Client()
    for endpoint in ("healthz", "livez", "readyz"):
        plain = client.get(f"/clusters/demo/{endpoint}")
        assert plain.status_code == 200 and plain.content == b"ok"
        assert plain["Content-Type"] == "text/plain; charset=utf-8"
    verbose = client.get("/clusters/demo/readyz?verbose")
    assert verbose.content.decode() == "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\nreadyz check passed\n"
    excluded = client.get("/clusters/demo/livez?verbose&exclude=etcd&exclude=kms")
    assert excluded.content.decode() == (
        "[+]ping ok\n[+]etcd excluded: ok\n"
        'warn: some health checks cannot be excluded: no matches for "kms"\n'
        "livez check passed\n"
    )
    assert client.get("/clusters/demo/healthz/etcd").content == b"ok"
    missing = client.get("/clusters/demo/healthz/nosuch")
    assert missing.status_code == 404 and missing.json()["reason"] == "NotFound"


def test_a_failing_check_is_500_with_the_reason_withheld_and_its_own_path_says_why(demo, monkeypatch):
    from cluster.api import health

    monkeypatch.setitem(health.CHECKS["healthz"], "etcd", lambda cluster: "the store is gone")
    failed = Client().get("/clusters/demo/healthz")
    assert failed.status_code == 500
    assert failed.content.decode() == "[+]ping ok\n[-]etcd failed: reason withheld\nhealthz check failed\n"
    one = Client().get("/clusters/demo/healthz/etcd")
    assert one.status_code == 500 and one.content.decode() == "internal server error: the store is gone\n"


def test_health_of_a_cluster_the_caller_may_not_see_is_its_404(sandbox):
    hidden = Client().get(f"/clusters/{sandbox.name}/healthz")
    assert hidden.status_code == 404 and hidden.json()["message"] == f'clusters "{sandbox.name}" not found'


# -- every error a Status ----------------------------------------------------------------------------
def test_flow_and_page_helpers_of_a_hidden_cluster_answer_a_status(sandbox):
    client = Client()
    for path in (
        "/snapshot",
        "/flow/steps",
        f"/traces/{'a' * 8}",
        "/scheduling/default/web",
        "/ui/describe/Pod/default/web",
        "/ui/events/Pod/default/web",
    ):
        answer = client.get(f"/clusters/{sandbox.name}{path}")
        assert answer.status_code == 404, path
        assert answer.json()["details"] == {"name": sandbox.name, "kind": "clusters"}, path
    page = client.get(f"/clusters/{sandbox.name}/")  # a browser's page stays a page
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_unknown_paths_and_wrong_methods_under_a_cluster_are_statuses(demo):
    client = Client()
    unknown = client.get("/clusters/demo/nosuch/path")
    assert (
        unknown.status_code == 404
        and unknown.json()["message"] == "the server could not find the requested resource"
    )
    wrong = client.post("/clusters/demo/snapshot")
    assert wrong.status_code == 405 and wrong.json()["reason"] == "MethodNotAllowed"
    refused = Client(enforce_csrf_checks=True).post("/clusters/demo/ui/console", "{}", "application/json")
    assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden"
    assert Client().get("/nosuch")["Content-Type"].startswith("text/html")  # outside the API: a page


# -- kubeconfigs --------------------------------------------------------------------------------------
def test_the_teachers_kubeconfig_has_one_server_and_a_context_and_token_per_cluster(
    demo, sandbox, teacher_client
):
    config = yaml.safe_load(teacher_client.get(f"/clusters/{sandbox.name}/kubeconfig").content)
    assert [c["cluster"]["server"] for c in config["clusters"]] == ["https://testserver:6443"]
    assert config["current-context"] == f"kubesim-{sandbox.name}"
    tokens = {u["name"]: u["user"]["token"] for u in config["users"]}
    assert tokens == {
        f"kubesim-{sandbox.name}": teacher_token(sandbox.name),
        "kubesim-demo": teacher_token("demo"),
    }
    assert {c["context"]["cluster"] for c in config["contexts"]} == {"kubesim"}


def test_a_students_kubeconfig_has_their_sandbox_only_and_anonymous_ones_keep_the_path(demo, sandbox):
    student = Client()
    student.force_login(sandbox.owner)
    config = yaml.safe_load(student.get(f"/clusters/{sandbox.name}/kubeconfig").content)
    assert config["clusters"][0]["cluster"]["server"] == "https://testserver:6443"
    assert [u["user"] for u in config["users"]] == [{"token": sandbox_token(sandbox)}]
    viewer = yaml.safe_load(Client().get("/clusters/demo/kubeconfig").content)
    assert (
        viewer["clusters"][0]["cluster"]["server"] == "https://testserver:6443"
    )  # the demo: no token needed
    Cluster.objects.create(name="demo-2", public=True)
    other = yaml.safe_load(Client().get("/clusters/demo-2/kubeconfig").content)
    assert other["clusters"][0]["cluster"]["server"] == "https://testserver:6443/clusters/demo-2"
    assert other["users"] == [{"name": "kubesim-demo-2", "user": {}}]


def test_the_root_lists_the_paths_the_api_server_serves_as_kube_apiserver_does(demo):
    status, headers, body = fetch("/", presenter_token())
    assert status == 200 and headers["content-type"] == "application/json"
    paths = json.loads(body)["paths"]
    assert paths == sorted(paths)
    for served in ("/api", "/api/v1", "/apis", "/apis/apps/v1", "/healthz", "/readyz/etcd", "/version"):
        assert served in paths, served
    for listed in paths:  # every path listed answers (none is a 404)
        if listed not in ("/metrics",):
            assert fetch(listed, presenter_token())[0] == 200, listed

"""`kubectl exec` in the web console: one command run here, `-it` handed to the exec socket."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from tests.support.auth import teacher_client
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(transactional_db):
    cluster = create_demo("demo", pace_ms=0)
    yield cluster
    runtime.forget("demo")


def run(command: str, client: Client | None = None) -> dict:
    response = (client or teacher_client()).post(
        "/clusters/demo/ui/console", json.dumps({"command": command}), "application/json"
    )
    assert response.status_code == 200
    return response.json()


def _pod(cluster, name: str, *containers: str, node: bool = True) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": c, "image": "nginx:1.25"} for c in containers]}}  # fmt: skip
    if not node:
        pod["spec"]["nodeSelector"] = {"disk": "none-has-it"}
    api.create(cluster, pod, KUBECTL)
    async_to_sync(runtime.run_until_idle)("demo")


def test_one_command_prints_its_output_and_exit_code(demo):
    _pod(demo, "web", "nginx")
    assert run("exec web -- hostname") == {"output": "web\n", "exit_code": 0, "ui": {}}
    failed = run("kubectl exec web -- sh -c 'echo $HOSTNAME; exit 3'")
    assert failed == {"output": "web\ncommand terminated with exit code 3\n", "exit_code": 3, "ui": {}}
    missing = run("exec web -- nosuchcmd")
    assert missing["exit_code"] == 127
    assert missing["output"].endswith("command terminated with exit code 127\n")


def test_interactive_exec_hands_the_page_the_exec_socket(demo):
    _pod(demo, "web", "nginx")
    result = run("exec -it web -- bash")
    assert result["output"] == "" and result["exit_code"] == 0
    session = result["ui"]["exec"]
    url = urlsplit(session["path"])
    assert url.path == "/clusters/demo/api/v1/namespaces/default/pods/web/exec"
    query = parse_qs(url.query)
    assert query == {
        "command": ["bash"],
        "container": ["nginx"],
        "stdout": ["true"],
        "stdin": ["true"],
        "tty": ["true"],
    }
    assert session["tty"] is True


def test_kubectls_errors(demo):
    _pod(demo, "two", "a", "b")
    _pod(demo, "pending", "main", node=False)
    assert run("exec")["output"] == "error: pod, type/name or --filename must be specified\n"
    assert run("exec two")["output"] == "error: you must specify at least one command for the container\n"
    assert run("exec two ls")["output"].startswith("error: exec [POD] [COMMAND] is not supported anymore.")
    assert run("exec two -- hostname")["output"] == 'Defaulted container "a" out of: a, b\ntwo\n'
    assert run("exec two -c c -- ls")["output"] == (
        "Error from server (BadRequest): container c is not valid for pod two\n"
    )
    assert run("exec pending -- ls")["output"] == (
        "Error from server (BadRequest): pod pending does not have a host assigned\n"
    )
    assert run("exec nope -- ls")["output"] == 'Error from server (NotFound): pods "nope" not found\n'


def test_without_write_rights_exec_is_forbidden(demo):
    _pod(demo, "web", "nginx")
    assert run("exec web -- hostname", Client())["output"] == (
        'Error from server (Forbidden): pods "web" is forbidden: User "system:anonymous" cannot create '
        'resource "pods/exec" in API group "" in the namespace "default"\n'
    )


def test_an_exec_over_the_users_cap_is_refused_with_429(demo, settings):
    _pod(demo, "web", "nginx")
    settings.KUBESIM_EXEC_MAX_SESSIONS_PER_USER = 0
    result = run("exec web -- hostname")
    assert result["exit_code"] == 1
    assert result["output"] == (
        "Error from server (TooManyRequests): you have 0 exec sessions open; close one and try again\n"
    )


def test_what_a_container_wrote_goes_with_its_pod(demo):
    from cluster.models import ContainerLayer

    _pod(demo, "web", "nginx")
    assert run("exec web -- sh -c 'echo hi > /tmp/x'")["exit_code"] == 0
    assert ContainerLayer.objects.filter(cluster=demo).count() == 1
    api.delete(demo, "Pod", "default", "web", KUBECTL)
    deadline = time.monotonic() + 20

    def pod_left() -> bool:
        return bool(api.list_objects(demo, "Pod", field_selector="metadata.name=web")[0])

    while pod_left() and time.monotonic() < deadline:
        async_to_sync(runtime.run_until_idle)("demo")
        time.sleep(0.2)
    assert ContainerLayer.objects.filter(cluster=demo).count() == 0


def test_the_console_runs_a_bounded_number_of_execs_at_once(demo, monkeypatch):
    import threading

    from dashboard.console import exec as console_exec

    _pod(demo, "web", "nginx")
    monkeypatch.setattr(console_exec, "_running", threading.BoundedSemaphore(1))
    assert console_exec._running.acquire(blocking=False)  # the one slot is taken
    result = run("exec web -- hostname")
    assert result == {
        "output": f"Error from server (TooManyRequests): {console_exec.BUSY}\n",
        "exit_code": 1,
        "ui": {},
    }
    console_exec._running.release()
    assert run("exec web -- hostname")["output"] == "web\n"

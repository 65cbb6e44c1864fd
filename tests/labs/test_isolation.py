"""Isolation: a student sees and changes only their own sandbox (UI, REST, websocket); instructor
pages need staff; forms are CSRF-protected; websocket origins are checked."""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from cluster.api.access import can_edit, can_view
from kubesim.asgi import application
from labs.selftest import forget

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "x"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
}


@pytest.fixture
def sandboxes(student_a, student_b):
    yield student_a.student.sandbox.name, student_b.student.sandbox.name
    forget(student_a.student.sandbox)
    forget(student_b.student.sandbox)


def pods_url(cluster: str) -> str:
    return f"/clusters/{cluster}/api/v1/namespaces/default/pods"


def test_students_see_only_their_own_sandbox_page_and_rest(student_a, student_b, outsider, sandboxes):
    a, _ = sandboxes
    assert student_a.get(f"/clusters/{a}/").status_code == 200
    assert student_a.get(pods_url(a)).status_code == 200
    for client in (student_b, outsider):
        assert client.get(f"/clusters/{a}/").status_code == 404
        assert client.get(pods_url(a)).status_code in (403, 404)
        response = client.post(pods_url(a), json.dumps(POD), content_type="application/json")
        assert response.status_code in (403, 404)
    assert student_a.post(pods_url(a), json.dumps(POD), content_type="application/json").status_code == 201


def test_access_rules_let_staff_see_every_sandbox(teacher, student_a, student_b, sandboxes):
    sandbox = student_a.student.sandbox
    assert can_view(teacher.user, sandbox) and can_edit(teacher.user, sandbox)
    assert can_view(student_a.student.user, sandbox)
    assert not can_view(student_b.student.user, sandbox) and not can_edit(student_b.student.user, sandbox)
    assert teacher.get(pods_url(sandbox.name)).status_code == 200


def test_lab_endpoints_answer_only_the_students_own_progress(student_a, student_b, outsider, sandboxes):
    assert outsider.get("/lab/state").status_code == 403
    assert student_a.get("/lab/state").json()["student"] == "Alice"
    assert student_b.get("/lab/state").json()["student"] == "Bob"
    assert student_b.get("/lab/state").json()["sandbox"] == sandboxes[1]


def test_instructor_pages_need_a_staff_login(teacher, student_a, outsider, session, sandboxes):
    for client in (student_a, outsider):
        assert client.get("/labs/manage/").status_code == 302
        assert client.get(f"/labs/manage/sessions/{session.code}/board.json").status_code == 302
        assert client.post(f"/labs/manage/sessions/{session.code}/students/1/reset").status_code == 302
    assert teacher.get("/labs/manage/").status_code == 200
    board = teacher.get(f"/labs/manage/sessions/{session.code}/board.json").json()
    assert {row["name"] for row in board["students"]} == {"Alice", "Bob"}


def test_forms_are_csrf_protected(session, teacher):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/join/", {"code": session.code, "name": "Eve"}).status_code == 403
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(teacher.user)
    assert (
        staff.post(
            f"/labs/manage/sessions/{session.code}/hint", "{}", content_type="application/json"
        ).status_code
        == 403
    )


def test_a_student_cannot_join_twice_under_a_taken_name(session, student_a, sandboxes):
    response = Client().post("/join/", {"code": session.code, "name": "Alice"})
    assert response.status_code == 400 and b"already uses that name" in response.content
    assert Client().post("/join/", {"code": "NOPE42", "name": "Zed"}).status_code == 400


async def connect(path: str, client: Client | None, origin=ORIGIN):
    headers = list(origin)
    if client is not None and client.cookies.get("sessionid"):
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def test_websockets_are_isolated_per_student_and_board_needs_staff(
    student_a, student_b, teacher, session, sandboxes
):
    a, _ = sandboxes
    ws, ok = await connect(f"/ws/clusters/{a}/", student_b)
    assert not ok
    await ws.disconnect()
    ws, ok = await connect(f"/ws/clusters/{a}/", student_a)
    assert ok
    await ws.disconnect()
    ws, ok = await connect("/ws/labs/student/", student_b)
    assert ok
    message = await ws.receive_json_from(timeout=5)
    assert message["type"] == "state" and message["state"]["student"] == "Bob"
    await ws.disconnect()
    ws, ok = await connect(f"/ws/labs/session/{session.code}/", student_a)
    assert not ok
    await ws.disconnect()
    ws, ok = await connect(f"/ws/labs/session/{session.code}/", teacher)
    assert ok
    assert (await ws.receive_json_from(timeout=5))["type"] == "board"
    await ws.disconnect()


async def test_websocket_from_a_foreign_origin_is_refused(student_a, sandboxes):
    ws, ok = await connect("/ws/labs/student/", student_a, origin=[(b"origin", b"http://evil.example")])
    assert not ok
    await ws.disconnect()


def test_join_page_and_its_errors_speak_the_students_language(session, student_a, sandboxes):
    client = Client(headers={"accept-language": "zh-hans"})
    assert "加入课堂" in client.get("/join/").content.decode()
    response = client.post("/join/", {"code": session.code, "name": "Alice"})
    assert "班里已经有人使用这个名字" in response.content.decode()

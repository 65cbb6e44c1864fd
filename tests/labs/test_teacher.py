"""Instructors: the editor validates and tests labs; sessions, hints, reveal and reset reach students."""

from __future__ import annotations

import json

import pytest

from labs.loader import bundled_paths
from labs.models import ClassSession, LabDefinition
from labs.selftest import forget

pytestmark = pytest.mark.django_db(transaction=True)


def test_editor_validates_while_typing_with_located_errors(teacher):
    text = bundled_paths()[2].read_text().replace("label: zz=cxk", "lable: zz=cxk", 1)
    errors = teacher.post("/labs/manage/validate", text, content_type="application/yaml").json()["errors"]
    texts = [error["text"] for error in errors]
    assert any(
        t.startswith("lab 'nodeselector', step 2 ('label-node'), check 1: unknown key 'lable'") for t in texts
    )
    assert all(error["line"] > 0 for error in errors)
    ok = teacher.post(
        "/labs/manage/validate", bundled_paths()[2].read_text(), content_type="application/yaml"
    )
    assert ok.json() == {"errors": []}


def test_test_lab_button_runs_the_self_test(teacher):
    report = teacher.post(
        "/labs/manage/test", bundled_paths()[1].read_text(), content_type="application/yaml"
    ).json()
    assert report == {"ok": True, "steps_passed": 3, "errors": []}


def test_save_export_publish_and_open_a_session(teacher):
    source = bundled_paths()[1].read_text().replace("id: nodename", "id: my-nodename", 1)
    response = teacher.post("/labs/manage/new", {"source": source})
    assert response.status_code == 302
    lab = LabDefinition.objects.get(slug="my-nodename")
    assert not lab.published and not lab.bundled
    assert teacher.get("/labs/manage/my-nodename/export").content.decode() == source
    assert teacher.post("/labs/manage/sessions/new", {"lab": "my-nodename"}).status_code == 404
    teacher.post("/labs/manage/my-nodename/publish", {"published": "1"})
    response = teacher.post("/labs/manage/sessions/new", {"lab": "my-nodename"})
    session = ClassSession.objects.get(lab=lab)
    assert response.url == f"/labs/manage/sessions/{session.code}/"
    assert b"/join/?code=" + session.code.encode() in teacher.get(response.url).content


def test_an_invalid_lab_is_not_saved(teacher):
    response = teacher.post("/labs/manage/new", {"source": "id: x\n"})
    assert response.status_code == 400 and not LabDefinition.objects.filter(slug="x").exists()
    assert b"missing required key" in response.content


def test_hints_reveal_and_reset_reach_the_student(teacher, session, student_a, student_b):
    base = f"/labs/manage/sessions/{session.code}"
    alice = student_a.student
    hint = {"student": alice.pk, "en": "Look at the node labels", "zh": "看看节点标签"}
    assert teacher.post(f"{base}/hint", json.dumps(hint), content_type="application/json").json() == {
        "sent": 1
    }
    assert student_a.get("/lab/state").json()["pushed_hint"]["en"] == "Look at the node labels"
    assert student_b.get("/lab/state").json()["pushed_hint"] is None
    everyone = {"student": "all", "en": "Five minutes left", "zh": "还剩五分钟"}
    teacher.post(f"{base}/hint", json.dumps(everyone), content_type="application/json")
    assert student_b.get("/lab/state").json()["class_hint"]["zh"] == "还剩五分钟"
    teacher.post(f"{base}/students/{alice.pk}/reveal")
    assert student_a.get("/lab/state").json()["step"]["solution"] is not None
    assert student_b.get("/lab/state").json()["step"]["solution"] is None
    assert teacher.post(f"{base}/students/{alice.pk}/reset").json() == {"reset": "Alice"}
    assert student_a.get("/lab/state").json()["step"]["solution"] is None
    forget(alice.sandbox)
    forget(student_b.student.sandbox)


def test_a_closed_session_refuses_new_students(teacher, session, client):
    teacher.post(f"/labs/manage/sessions/{session.code}/close", {"open": "0"})
    response = client.post("/join/", {"code": session.code, "name": "Late"})
    assert response.status_code == 400 and b"closed" in response.content

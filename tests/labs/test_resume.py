"""Students come back: the resume link and code restore the student's session (their sandbox, its
kubeconfig and their progress) in another browser; the teacher issues new ones; a second join
from the same browser asks first."""

from __future__ import annotations

import pytest
from django.test import Client

from labs.models import Student
from labs.selftest import forget

pytestmark = pytest.mark.django_db(transaction=True)


def _page(client: Client) -> str:
    response = client.get("/lab/")
    assert response.status_code == 200
    return response.content.decode()


def test_join_issues_a_resume_link_and_code_shown_in_the_panel(student_a):
    alice = Student.objects.get(pk=student_a.student.pk)
    assert len(alice.resume_token) >= 40 and len(alice.resume_code) == 9 and alice.resume_code[4] == "-"
    html = _page(student_a)
    assert f"/resume/{alice.resume_token}" in html and alice.resume_code in html
    forget(alice.sandbox)


def test_the_link_restores_the_sandbox_and_progress_in_a_fresh_browser(student_a):
    alice = Student.objects.get(pk=student_a.student.pk)
    fresh = Client()
    asked = fresh.get(f"/resume/{alice.resume_token}")
    assert asked.status_code == 200 and "Continue as Alice" in asked.content.decode()
    assert fresh.get("/lab/").url == "/join/"  # asking signed nothing in
    assert fresh.post(f"/resume/{alice.resume_token}").url == "/lab/"
    assert alice.sandbox.name in _page(fresh)
    assert fresh.get("/lab/state").json()["sandbox"] == alice.sandbox.name
    kubeconfig = fresh.get(f"/clusters/{alice.sandbox.name}/kubeconfig")
    assert kubeconfig.status_code == 200 and alice.sandbox.name in kubeconfig.content.decode()
    assert Client().get("/resume/not-a-token").status_code == 404
    forget(alice.sandbox)


def test_the_short_code_with_the_class_code_restores_it_too(session, student_a):
    alice = Student.objects.get(pk=student_a.student.pk)
    fresh = Client()
    wrong = fresh.post("/resume/", {"code": session.code, "resume_code": "AAAA-AAAA"})
    assert wrong.status_code == 400 and "resume code" in wrong.content.decode()
    typed = alice.resume_code.lower().replace("-", " ")
    assert fresh.post("/resume/", {"code": session.code.lower(), "resume_code": typed}).url == "/lab/"
    assert alice.sandbox.name in _page(fresh)
    for _ in range(10):
        limited = Client().post("/resume/", {"code": session.code, "resume_code": "BBBB-BBBB"})
    assert limited.status_code == 429 and limited["Retry-After"]
    forget(alice.sandbox)


def test_the_teacher_issues_a_new_link_and_the_old_one_stops_working(teacher, session, student_a):
    alice = Student.objects.get(pk=student_a.student.pk)
    old = alice.resume_token
    issued = teacher.post(f"/labs/manage/sessions/{session.code}/students/{alice.pk}/resume").json()
    alice.refresh_from_db()
    assert issued["url"].endswith(f"/resume/{alice.resume_token}") and issued["code"] == alice.resume_code
    assert alice.resume_token != old
    assert Client().get(f"/resume/{old}").status_code == 404
    assert Client().post(f"/resume/{alice.resume_token}").url == "/lab/"
    assert teacher.post(f"/resume/{alice.resume_token}").status_code == 400  # not in the teacher's browser
    forget(alice.sandbox)


def test_a_second_join_from_the_same_browser_asks_first(session, student_a):
    asked = student_a.post("/join/", {"code": session.code, "name": "Alice again"})
    assert asked.status_code == 409
    text = asked.content.decode()
    assert "already in class" in text and "Join as a new student" in text
    assert not Student.objects.filter(display_name="Alice again").exists()
    joined = student_a.post("/join/", {"code": session.code, "name": "Alice again", "confirm": "1"})
    assert joined.url == "/lab/"
    again = Student.objects.get(display_name="Alice again")
    assert again.sandbox.name in _page(student_a)
    taken = Client().post("/join/", {"code": session.code, "name": "Alice"})
    assert taken.status_code == 400 and "resume link" in taken.content.decode()
    forget(student_a.student.sandbox)
    forget(again.sandbox)

"""Courses: labs in order behind one join code, one sandbox per student through them, the next lab
at the student's pace or when the teacher opens it, and earlier steps readable again."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from labs.models import ClassSession, Course, LabDefinition, LabRecord, StepProgress
from labs.selftest import forget
from tests.labs.conftest import join
from tests.labs.test_versions import _console, lab_text

pytestmark = pytest.mark.django_db(transaction=True)

REORDERED = {"title_zh": "两个实验", "pace": "student", "labs": ["second-lab", "first-lab"]}


def _lab(teacher, lab_id: str, *steps: str, title: str) -> None:
    text = lab_text(*steps, title=title).replace("id: versions", f"id: {lab_id}")
    assert teacher.post("/labs/manage/new", {"source": text}).status_code == 302
    LabDefinition.objects.filter(slug=lab_id).update(published=True)


def _course(teacher, pace: str, slug: str = "two-labs") -> Course:
    _lab(teacher, "first-lab", "a", "b", title="First")
    _lab(teacher, "second-lab", "c", title="Second")
    form = {"id": slug, "title_en": "Two labs", "title_zh": "两个实验", "pace": pace}
    saved = teacher.post("/labs/manage/courses/new", {**form, "labs": ["first-lab", "second-lab"]})
    assert saved.status_code == 302, saved.content.decode()
    return Course.objects.get(slug=slug)


def _open(teacher, course: Course) -> ClassSession:
    opened = teacher.post(f"/labs/manage/courses/{course.slug}/open")
    assert opened.status_code == 302
    return ClassSession.objects.get(code=opened.url.rstrip("/").rsplit("/", 1)[1])


def test_the_course_form_refuses_bad_input_with_every_field_named_and_stores_nothing(teacher):
    _lab(teacher, "first-lab", "a", title="First")
    _lab(teacher, "draft-lab", "a", title="Draft")
    LabDefinition.objects.filter(slug="draft-lab").update(published=False)
    bad = {
        "id": "Bad Id",
        "title_en": "",
        "title_zh": "课程",
        "pace": "fast",
        "labs": ["first-lab", "nope", "draft-lab", "first-lab"],
    }
    page = teacher.post("/labs/manage/courses/new", bad)
    assert page.status_code == 400
    text = page.content.decode()
    for field, words in [
        ("id", "lowercase letters"),
        ("title.en", "both languages"),
        ("pace", "Choose who opens"),
        ("labs[1]", "No lab has the id &#x27;nope&#x27;"),
        ("labs[2]", "not published"),
        ("labs[3]", "in the course twice"),
    ]:
        assert f'data-field="{field}"' in text and words in text, field
    assert "6 problems: nothing was saved." in text
    assert not Course.objects.exists()
    one = teacher.post(
        "/labs/manage/courses/new",
        {"id": "one", "title_en": "One", "title_zh": "一", "pace": "teacher", "labs": ["first-lab"]},
    )
    assert one.status_code == 400 and "at least two labs" in one.content.decode()


def test_editing_a_course_makes_a_version_and_a_running_class_keeps_its_plan(teacher):
    course = _course(teacher, "teacher")
    session = _open(teacher, course)
    assert session.plan == [{"lab": "first-lab", "version": 1}, {"lab": "second-lab", "version": 1}]
    alice = join(session, "Alice")
    edited = teacher.post(
        "/labs/manage/courses/two-labs/",
        {**REORDERED, "title_en": "Two labs"},
    )
    assert edited.status_code == 302
    course.refresh_from_db()
    assert (course.version, course.labs, course.pace) == (2, ["second-lab", "first-lab"], "student")
    assert list(course.versions.values_list("number", flat=True)) == [1, 2]
    session.refresh_from_db()
    assert (session.plan[0]["lab"], session.pace, session.course_version) == ("first-lab", "teacher", 1)
    assert alice.get("/lab/state").json()["lab"]["id"] == "first-lab"
    # Only the title changed: no new version.
    teacher.post(
        "/labs/manage/courses/two-labs/",
        {**REORDERED, "title_en": "Two labs!"},
    )
    course.refresh_from_db()
    assert (course.version, course.title_en) == (2, "Two labs!")
    forget(alice.student.sandbox)


def test_at_the_students_pace_one_goes_on_while_another_stays_and_earlier_steps_stay_readable(teacher):
    session = _open(teacher, _course(teacher, "student"))
    alice, bob = join(session, "Alice"), join(session, "Bob")
    sandbox = alice.student.sandbox.name
    refused = alice.post("/lab/next")
    assert refused.status_code == 409 and refused.json()["error"] == "Finish this lab first."
    assert alice.get("/lab/review/0/1").status_code == 404  # not reached: no reading ahead
    _console(alice, alice.student, "label nodes node1 a=1")
    _console(alice, alice.student, "label nodes node1 b=1")
    state = alice.get("/lab/state").json()
    assert state["done"] and state["course"]["next"] == {
        "position": 1,
        "title": {"en": "Second", "zh": "版本"},
        "open": True,
    }
    state = alice.post("/lab/next").json()
    assert (state["lab"]["id"], state["current"], state["course"]["position"]) == ("second-lab", 0, 1)
    assert [lab["state"] for lab in state["course"]["labs"]] == ["finished", "current"]
    alice.student.refresh_from_db()
    assert alice.student.sandbox.name == sandbox  # the same sandbox, kubeconfig and token
    # Lab 2 starts from its own starting state: lab 1's labels are gone.
    body = json.dumps({"command": "get nodes node1 --show-labels", "stdin": ""})
    shown = alice.post(f"/clusters/{sandbox}/ui/console", body, "application/json").json()
    assert "node1" in shown["output"] and "a=1" not in shown["output"] and "b=1" not in shown["output"]
    record = LabRecord.objects.get(student=alice.student, position=0)
    assert record.finished and [s["id"] for s in record.steps] == ["a", "b"]
    assert [c["command"] for c in record.commands][:2] == [
        "label nodes node1 b=1",
        "label nodes node1 a=1",
    ]
    assert set(StepProgress.objects.filter(student=alice.student).values_list("step_id", flat=True)) == {"c"}

    # Going back: step 1 of lab 1, its instructions and her result, while she is in lab 2.
    step = alice.get("/lab/review/0/0").json()
    assert step["lab"]["id"] == "first-lab" and step["title"]["en"] == "Step a"
    assert "Label node1 a=1." in step["instructions"]["en"]
    assert step["result"]["passed_at"] and step["result"]["attempts"] == 0
    assert step["solution"]["commands"] == ["kubectl label nodes node1 a=1"]
    assert step["commands"][-1]["command"] == "label nodes node1 a=1"

    board = teacher.get(f"/labs/manage/sessions/{session.code}/board.json").json()
    rows = {row["name"]: row for row in board["students"]}
    assert [(rows[n]["lab"], rows[n]["step"]) for n in ("Alice", "Bob")] == [(1, 0), (0, 0)]
    assert (rows["Alice"]["status"], rows["Bob"]["status"]) == ("working", "not-started")
    buckets = ["L1 · 1. Step a", "L1 · 2. Step b", "L1 · Done", "L2 · 1. Step c", "L2 · Done"]
    assert [b["en"] for b in board["buckets"]] == buckets
    assert board["histogram"] == [1, 0, 0, 1, 0]
    assert board["course"]["labs"][1]["students"] == 1 and board["course"]["pace"] == "student"
    exported = teacher.get(f"/labs/manage/sessions/{session.code}/progress.json").json()
    ann = next(s for s in exported["students"] if s["name"] == "Alice")
    assert (ann["lab"], ann["lab_position"], ann["earlier_labs"][0]["lab"]) == ("second-lab", 1, "first-lab")
    assert [s["id"] for s in ann["earlier_labs"][0]["steps"]] == ["a", "b"]
    # Bob's page still reads his lab 1; he cannot read Alice's.
    assert bob.get("/lab/state").json()["lab"]["id"] == "first-lab"
    assert bob.get("/lab/review/1/0").status_code == 404
    forget(alice.student.sandbox)
    forget(bob.student.sandbox)


def test_at_the_teachers_pace_the_next_lab_opens_for_everyone_on_the_teachers_action(teacher):
    session = _open(teacher, _course(teacher, "teacher"))
    alice, bob = join(session, "Alice"), join(session, "Bob")
    _console(alice, alice.student, "label nodes node1 a=1")
    _console(alice, alice.student, "label nodes node1 b=1")
    state = alice.get("/lab/state").json()
    assert state["done"] and state["course"]["next"]["open"] is False
    refused = alice.post("/lab/next")
    assert refused.status_code == 409 and "Your teacher opens the next lab" in refused.json()["error"]
    _console(bob, bob.student, "label nodes node1 a=1")
    assert bob.get("/lab/state").json()["current"] == 1

    opened = teacher.post(f"/labs/manage/sessions/{session.code}/open-next").json()
    assert opened == {"open": 2, "position": 1, "moved": 2}
    for client in (alice, bob):
        state = client.get("/lab/state").json()
        assert (state["lab"]["id"], state["current"]) == ("second-lab", 0)
    records = {r.student.display_name: r for r in LabRecord.objects.select_related("student")}
    assert (records["Alice"].finished, records["Bob"].finished) == (True, False)
    assert [lab["state"] for lab in bob.get("/lab/state").json()["course"]["labs"]] == ["left", "current"]
    # Bob re-reads the step he left unfinished: what the checks said last.
    left = bob.get("/lab/review/0/1").json()
    assert left["result"]["passed_at"] is None
    assert left["result"]["last_failure"][0]["message"]["en"].startswith("Node node1 should have the label")
    again = teacher.post(f"/labs/manage/sessions/{session.code}/open-next")
    assert again.status_code == 409 and again.json()["error"] == "Every lab of the course is open already."
    # A student who joins now starts where the class is.
    carol = join(session, "Carol")
    assert carol.get("/lab/state").json()["lab"]["id"] == "second-lab"
    for client in (alice, bob, carol):
        forget(client.student.sandbox)


def test_whoami_names_the_student_as_they_joined_beside_a_stable_username(teacher):
    session = _open(teacher, _course(teacher, "student"))
    long_name = "Zhang Wei-Ming from the second row, by the window (group B)"
    assert len(long_name) > 40
    student = join(session, long_name)
    assert student.student.display_name == long_name  # whole, not cut at 40
    body = json.dumps({"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1"})
    url = f"/clusters/{student.student.sandbox.name}/apis/authentication.k8s.io/v1/selfsubjectreviews"
    info = student.post(url, body, "application/json").json()["status"]["userInfo"]
    assert info["username"] == student.student.user.username and info["username"].startswith("student-")
    assert info["extra"] == {"kubesim.io/display-name": [long_name]}
    teacher_info = teacher.post(url, body, "application/json").json()["status"]["userInfo"]
    assert "extra" not in teacher_info
    forget(student.student.sandbox)


def test_a_display_name_over_80_characters_is_refused_not_cut(teacher):
    session = _open(teacher, _course(teacher, "student"))
    refused = Client().post("/join/", {"code": session.code, "name": "x" * 81})
    assert refused.status_code == 400
    assert "A display name has at most 80 characters." in refused.content.decode()
    assert not session.students.exists()

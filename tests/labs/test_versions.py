"""Lab versions: editing a lab during a class makes a new version, students keep the one they
started (and their progress), the teacher moves the class on with progress mapped by step id and
the removed steps named; bundled labs are read-only and copied to edit."""

from __future__ import annotations

import json

import pytest

from labs.catalog import import_bundled, lab_for
from labs.models import ClassSession, LabDefinition, LabVersion, StepProgress, Student
from labs.selftest import forget
from tests.labs.conftest import join, nodes

pytestmark = pytest.mark.django_db(transaction=True)


def _step(step_id: str) -> str:
    return f"""  - id: {step_id}
    title: {{en: "Step {step_id}", zh: "步骤 {step_id}"}}
    instructions: {{en: "Label node1 {step_id}=1.", zh: "给 node1 打标签 {step_id}=1。"}}
    checks:
      - type: nodeLabel
        node: node1
        label: {step_id}=1
    solution:
      commands: ["kubectl label nodes node1 {step_id}=1"]
"""


def lab_text(*steps: str, title: str = "Versions") -> str:
    manifests = "".join(f"    {line}\n" for line in nodes("node1").splitlines())
    return (
        f"id: versions\ntitle: {{en: {title}, zh: 版本}}\nlevel: beginner\nminutes: 5\n"
        f"cluster:\n  pace: 0\n  manifests: |\n{manifests}steps:\n{''.join(_step(s) for s in steps)}"
    )


def _console(client, student: Student, command: str) -> None:
    body = json.dumps({"command": command, "stdin": ""})
    answer = client.post(f"/clusters/{student.sandbox.name}/ui/console", body, "application/json").json()
    assert answer["exit_code"] == 0, answer


def _fresh(student: Student) -> Student:
    return Student.objects.select_related("session__lab", "sandbox").get(pk=student.pk)


def test_editing_a_lab_mid_class_keeps_each_students_version_and_progress(teacher):
    saved = teacher.post("/labs/manage/new", {"source": lab_text("a", "b", "c")})
    assert saved.status_code == 302
    definition = LabDefinition.objects.get(slug="versions")
    definition.published = True
    definition.save()
    teacher.post("/labs/manage/sessions/new", {"lab": "versions"})
    session = ClassSession.objects.get(lab=definition)
    alice = join(session, "Alice")
    _console(alice, alice.student, "label nodes node1 a=1")
    assert alice.get("/lab/state").json()["current"] == 1  # on step b

    # The teacher removes step b and adds d: version 2. Alice keeps version 1 and her place.
    edited = teacher.post("/labs/manage/versions/", {"source": lab_text("a", "c", "d", title="Versions 2")})
    assert edited.status_code == 302
    definition.refresh_from_db()
    assert definition.version == 2
    assert list(LabVersion.objects.filter(definition=definition).values_list("number", flat=True)) == [1, 2]
    state = alice.get("/lab/state").json()
    assert (state["current"], state["step"]["id"], state["lab"]["title"]["en"]) == (1, "b", "Versions")
    assert StepProgress.objects.get(student=alice.student, step_id="a").passed_at is not None
    # A student who joins now gets the class's version too.
    bob = join(session, "Bob")
    assert bob.student.lab_version == 1 and [s.id for s in lab_for(_fresh(bob.student)).steps] == [
        "a",
        "b",
        "c",
    ]

    board = teacher.get(f"/labs/manage/sessions/{session.code}/board.json").json()
    assert (board["version"], board["latest"]) == (1, 2)
    assert board["removed_if_moved"] == [
        {"id": "b", "title": {"en": "Step b", "zh": "步骤 b"}, "students": ["Alice"]}
    ]

    # The teacher moves the class: Alice's step a stays passed, b is gone, she is on c.
    moved = teacher.post(f"/labs/manage/sessions/{session.code}/move").json()
    assert moved == {
        "version": 2,
        "moved": 2,
        "removed": [{"id": "b", "title": {"en": "Step b", "zh": "步骤 b"}, "students": ["Alice"]}],
    }
    state = alice.get("/lab/state").json()
    assert (state["current"], state["step"]["id"], state["lab"]["title"]["en"]) == (1, "c", "Versions 2")
    assert not StepProgress.objects.filter(student=alice.student, step_id="b").exists()
    assert StepProgress.objects.get(student=alice.student, step_id="a").passed_at is not None
    _console(alice, alice.student, "label nodes node1 c=1")
    assert alice.get("/lab/state").json()["current"] == 2
    board = teacher.get(f"/labs/manage/sessions/{session.code}/board.json").json()
    assert (board["version"], board["latest"], board["removed_if_moved"]) == (2, 2, [])
    assert {row["name"]: row["version"] for row in board["students"]} == {"Alice": 2, "Bob": 2}
    forget(alice.student.sandbox)
    forget(bob.student.sandbox)


def test_saving_the_same_text_makes_no_version_and_a_bundled_lab_is_read_only(teacher):
    import_bundled()
    bundled = LabDefinition.objects.get(slug="nodename")
    page = teacher.get("/labs/manage/nodename/").content.decode()
    assert "read-only" in page and 'action="/labs/manage/nodename/copy"' in page
    refused = teacher.post(
        "/labs/manage/nodename/", {"source": bundled.source.replace("minutes: 10", "minutes: 11")}
    )
    assert refused.status_code == 403
    bundled.refresh_from_db()
    assert bundled.version == 1 and "minutes: 10" in bundled.source

    copied = teacher.post("/labs/manage/nodename/copy")
    assert copied.status_code == 302 and copied.url == "/labs/manage/nodename-copy/"
    copy = LabDefinition.objects.get(slug="nodename-copy")
    assert (copy.published, copy.bundled, copy.version) == (False, False, 1)
    assert teacher.post("/labs/manage/nodename/copy").url == "/labs/manage/nodename-copy-2/"
    assert teacher.post("/labs/manage/nodename-copy/", {"source": copy.source}).status_code == 302
    copy.refresh_from_db()
    assert copy.version == 1  # nothing changed: no new version
    changed = copy.source.replace("minutes: 10", "minutes: 12")
    assert teacher.post("/labs/manage/nodename-copy/", {"source": changed}).status_code == 302
    copy.refresh_from_db()
    assert copy.version == 2 and LabVersion.objects.filter(definition=copy).count() == 2


def test_importing_a_teachers_lab_id_can_be_its_new_version(teacher):
    teacher.post("/labs/manage/new", {"source": lab_text("a", "b")})
    newer = lab_text("a", "b", "c")
    page = teacher.post("/labs/manage/import", {"source": newer}).content.decode()
    assert 'name="save_as" value="version" checked' in page and 'value="versions-2"' in page
    assert LabDefinition.objects.get(slug="versions").version == 1  # the import stored nothing
    saved = teacher.post("/labs/manage/new", {"source": newer, "save_as": "version"})
    assert saved.status_code == 302 and saved.url == "/labs/manage/versions/"
    definition = LabDefinition.objects.get(slug="versions")
    assert definition.version == 2 and definition.source == newer
    assert LabVersion.objects.get(definition=definition, number=1).source == lab_text("a", "b")

"""database.joined: one plain statement gives the same instances as the ORM's select_related."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cluster.models import Cluster
from database.joined import JoinedLookup
from labs.models import StepProgress, Student
from tests.labs.conftest import join

pytestmark = pytest.mark.django_db(transaction=True)

STUDENT = JoinedLookup(Student, "session", "session__lab", "sandbox", where=("id",))
PROGRESS_FROM = JoinedLookup(StepProgress, where=("student", "index__gte"))


def _fields(obj) -> dict:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def test_a_student_with_session_lab_and_sandbox_equals_select_related_in_one_statement(session):
    client = join(session, "Alice")
    student_id = client.student.pk
    Student.objects.filter(pk=student_id).update(pushed_hint={"en": "look", "zh": "看"}, current_step=1)
    expected = Student.objects.select_related("session__lab", "sandbox").get(pk=student_id)

    with CaptureQueriesContext(connection) as queries:
        found = STUDENT.get(student_id)
        session_, lab, sandbox = found.session, found.session.lab, found.sandbox  # cached: no query
    assert len(queries) == 1

    assert _fields(found) == _fields(expected)
    assert found.pushed_hint == {"en": "look", "zh": "看"}  # JSON decoded
    assert found.joined_at == expected.joined_at and found.joined_at.tzinfo is not None
    assert _fields(session_) == _fields(expected.session)
    assert session_.is_open is True  # booleans, not SQLite's 1
    assert _fields(lab) == _fields(expected.session.lab)
    assert _fields(sandbox) == _fields(expected.sandbox)
    assert not found._state.adding and found._state.db == "default"
    assert STUDENT.get(student_id + 1000) is None


def test_a_null_foreign_key_reads_as_none_without_a_query(session):
    client = join(session, "Bob")
    Student.objects.filter(pk=client.student.pk).update(sandbox=None)
    found = STUDENT.get(client.student.pk)
    with CaptureQueriesContext(connection) as queries:
        assert found.sandbox is None
    assert len(queries) == 0
    assert found.session.lab.slug == session.lab.slug


def test_rows_from_an_index_on_match_the_orm_filter(session):
    client = join(session, "Carol")
    student = client.student
    for index in range(3):
        StepProgress.objects.create(
            student=student,
            step_id=f"s{index}",
            index=index,
            last_failure=[{"m": index}],
            checked_revision=index,
        )
    expected = {p.index: _fields(p) for p in StepProgress.objects.filter(student=student, index__gte=1)}
    found = {p.index: _fields(p) for p in PROGRESS_FROM.all(student.pk, 1)}
    assert found == expected and sorted(found) == [1, 2]
    assert found[2]["last_failure"] == [{"m": 2}]


def test_a_private_cluster_by_name_with_its_owner(session):
    client = join(session, "Dan")
    sandbox = client.student.sandbox
    lookup = JoinedLookup(Cluster, "owner", where=("name", "public"))
    found = lookup.get(sandbox.name, False)
    assert found.pk == sandbox.pk and found.owner.pk == client.student.user_id
    assert lookup.get(sandbox.name, True) is None

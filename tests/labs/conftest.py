"""Personas and helpers of the labs tests: a teacher (staff), two students and an outsider."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from labs.catalog import import_bundled, lab_of
from labs.models import ClassSession, LabDefinition, Student

NODE = """apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  capacity: {{cpu: "2", memory: 4Gi, pods: "110"}}
  allocatable: {{cpu: "2", memory: 4Gi, pods: "110"}}
"""


def nodes(*names: str) -> str:
    return "---\n".join(NODE.format(name=name) for name in names)


@pytest.fixture
def teacher(db):
    user = get_user_model().objects.create_user("teacher", password="pw-teacher", is_staff=True)
    client = Client()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def session(db, teacher) -> ClassSession:
    import_bundled()
    return ClassSession.objects.create(
        lab=LabDefinition.objects.get(slug="nodeselector"), teacher=teacher.user
    )


def join(session: ClassSession, name: str) -> Client:
    client = Client()
    response = client.post("/join/", {"code": session.code, "name": name})
    assert response.status_code == 302, response.content
    client.student = Student.objects.get(session=session, display_name=name)
    return client


@pytest.fixture
def student_a(session) -> Client:
    return join(session, "Alice")


@pytest.fixture
def student_b(session) -> Client:
    return join(session, "Bob")


@pytest.fixture
def outsider(db) -> Client:
    return Client()


@pytest.fixture
def nodeselector_lab(session):
    return lab_of(session.lab)

"""Joining a class: a cap, rate limits on attempts and wrong codes; removing a student; the
student's own kubeconfig."""

from __future__ import annotations

import base64

import pytest
import yaml
from django.test import Client

from cluster.auth.access import sandbox_token
from cluster.models import Cluster
from labs.models import Student
from labs.selftest import forget
from tests.labs.conftest import join

pytestmark = pytest.mark.django_db(transaction=True)


def test_sandbox_names_do_not_reveal_the_join_code(session, student_a):
    name = student_a.student.sandbox.name
    assert name.startswith("lab-") and session.code.lower() not in name
    forget(student_a.student.sandbox)


def test_a_class_has_a_cap(settings, session):
    settings.KUBESIM_MAX_STUDENTS = 1
    first = join(session, "Alice")
    response = Client().post("/join/", {"code": session.code, "name": "Bob"})
    assert response.status_code == 400 and "This class is full" in response.content.decode()
    assert session.students.count() == 1
    forget(first.student.sandbox)


def test_wrong_codes_and_join_attempts_are_rate_limited_per_client(settings, session):
    settings.KUBESIM_WRONG_CODES_PER_MINUTE = 2
    guesser = Client()
    codes = [guesser.post("/join/", {"code": f"ZZZ{i}", "name": "x"}).status_code for i in range(3)]
    assert codes == [400, 400, 429]
    refused = guesser.post("/join/", {"code": "ZZZ9", "name": "x"})
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE = 4  # already 4 attempts from this address
    assert Client().post("/join/", {"code": session.code, "name": "Carol"}).status_code == 429
    assert session.students.count() == 0


def test_the_teacher_removes_a_student_with_their_sandbox(session, teacher, student_a):
    student = student_a.student
    name = student.sandbox.name
    url = f"/labs/manage/sessions/{session.code}/students/{student.pk}/remove"
    assert student_a.post(url).status_code == 302  # a student is no teacher (sent to log in)
    response = teacher.post(url)
    assert response.status_code == 200 and response.json() == {"removed": "Alice"}
    assert not Cluster.objects.filter(name=name).exists()
    assert not Student.objects.filter(pk=student.pk).exists()
    assert student_a.get(f"/clusters/{name}/version").status_code == 404
    assert student_a.get("/lab/").status_code == 302  # back to /join/


def test_the_lab_panel_offers_the_students_kubeconfig(student_a):
    sandbox = student_a.student.sandbox
    page = student_a.get("/lab/").content.decode()
    assert f'href="/clusters/{sandbox.name}/kubeconfig"' in page
    assert f"KUBECONFIG={sandbox.name}.kubeconfig kubectl get pods" in page
    response = student_a.get(f"/clusters/{sandbox.name}/kubeconfig")
    config = yaml.safe_load(response.content)
    assert response["Content-Disposition"] == f'attachment; filename="{sandbox.name}.kubeconfig"'
    assert config["users"][0]["user"]["token"] == sandbox_token(sandbox)
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == f"https://testserver:6443/clusters/{sandbox.name}"
    assert base64.b64decode(cluster["certificate-authority-data"]).startswith(b"-----BEGIN CERTIFICATE-----")
    forget(sandbox)

"""Joining a class: a cap, rate limits on attempts and wrong codes; removing a student; the
student's own kubeconfig."""

from __future__ import annotations

import base64

import pytest
import yaml
from django.test import Client

from cluster.auth.access import sandbox_token
from cluster.models import Cluster
from labs.joinlimits import BROWSER_COOKIE
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
    # Joins with a real code, from one address that is not shared: limited per address as before.
    settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE = 2
    names = ["", ""]  # refused (no name) but attempts all the same
    assert [Client().post("/join/", {"code": session.code, "name": n}).status_code for n in names] == [
        400,
        400,
    ]
    assert Client().post("/join/", {"code": session.code, "name": "Carol"}).status_code == 429
    assert session.students.count() == 0


def _browser(address: str = "") -> Client:
    """A browser that opened the join page first (its id cookie), optionally behind a proxy."""
    client = Client(HTTP_X_FORWARDED_FOR=address) if address else Client()
    response = client.get("/join/")
    assert response.cookies[BROWSER_COOKIE]["httponly"]
    return client


def test_a_class_behind_a_shared_address_joins_per_browser(settings, session):
    settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE = 2
    settings.KUBESIM_SHARED_ADDRESSES = ["127.0.0.0/8"]
    joined = []
    for i in range(4):  # twice the per-address limit, one browser each
        browser = _browser()
        assert browser.post("/join/", {"code": session.code, "name": f"s{i}"}).status_code == 302
        joined.append(browser)
    # One browser hammering is limited all the same; a browser without the cookie is the address.
    one = _browser()
    assert [one.post("/join/", {"code": session.code, "name": ""}).status_code for _ in range(3)] == [
        400,
        400,
        429,
    ]
    scripted = [Client().post("/join/", {"code": session.code, "name": ""}).status_code for _ in range(3)]
    assert scripted == [400, 400, 429]
    for browser in joined:
        forget(Student.objects.get(user=browser.session["_auth_user_id"]).sandbox)


def test_the_class_code_caps_joins_per_minute(settings, session):
    settings.KUBESIM_CLASS_JOINS_PER_MINUTE = 2
    settings.KUBESIM_SHARED_ADDRESSES = ["127.0.0.1"]
    codes = [_browser().post("/join/", {"code": session.code, "name": ""}).status_code for _ in range(3)]
    assert codes == [400, 400, 429]


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(settings, session):
    settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE = 1
    settings.KUBESIM_TRUSTED_PROXIES = ["127.0.0.1"]
    codes = [
        _browser(f"10.0.0.{i}").post("/join/", {"code": session.code, "name": ""}).status_code
        for i in range(3)
    ]
    assert codes == [400, 400, 400]  # three clients, one attempt each
    assert _browser("10.0.0.1").post("/join/", {"code": session.code, "name": ""}).status_code == 429
    # The same header from a peer that is not trusted proves nothing: one address, one limit.
    settings.KUBESIM_TRUSTED_PROXIES = []
    codes = [
        _browser(f"10.0.1.{i}").post("/join/", {"code": session.code, "name": ""}).status_code
        for i in range(2)
    ]
    assert codes == [400, 429]


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
    assert cluster["server"] == "https://testserver:6443"  # one address: the token names the sandbox
    assert base64.b64decode(cluster["certificate-authority-data"]).startswith(b"-----BEGIN CERTIFICATE-----")
    forget(sandbox)

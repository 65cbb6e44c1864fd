"""Writes need the teacher's token, or the session plus its CSRF token; a forged write changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from cluster.models import Cluster
from tests.api.conftest import PODS, pod_json

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api.urls")]
ANONYMOUS_CREATE = (
    'pods is forbidden: User "system:anonymous" cannot create resource "pods" in API group "" '
    'in the namespace "default"'
)


def logged_in_client() -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("teacher", is_staff=True))
    return client


def test_kubectl_without_cookies_needs_the_teachers_token(cluster, teacher_headers):
    anonymous = Client(enforce_csrf_checks=True).post(PODS, pod_json("web"), content_type="application/json")
    assert anonymous.status_code == 403
    assert anonymous.json()["message"] == ANONYMOUS_CREATE
    with_token = Client(enforce_csrf_checks=True).post(
        PODS, pod_json("web"), content_type="application/json", headers=teacher_headers
    )
    assert with_token.status_code == 201


def test_a_forged_write_riding_a_session_cookie_is_refused_and_changes_nothing(cluster):
    client = logged_in_client()
    response = client.post(PODS, pod_json("web"), content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["message"]
    assert client.get(f"{PODS}/web").status_code == 404


def test_the_dashboard_write_with_its_token_goes_through(cluster):
    client = logged_in_client()
    client.get("/clusters/demo/api/v1/nodes")
    client.cookies["csrftoken"] = "a" * 32
    response = client.post(
        PODS, pod_json("web"), content_type="application/json", headers={"X-CSRFToken": "a" * 32}
    )
    assert response.status_code == 201


def test_when_the_class_may_write_a_browser_still_needs_the_csrf_token(cluster):
    Cluster.objects.filter(pk=cluster.pk).update(class_may_write=True)
    student = Client(enforce_csrf_checks=True)
    forged = student.post(PODS, pod_json("web"), content_type="application/json")
    assert forged.status_code == 403 and "CSRF" in forged.json()["message"]
    student.cookies["csrftoken"] = "b" * 32
    ok = student.post(
        PODS, pod_json("web"), content_type="application/json", headers={"X-CSRFToken": "b" * 32}
    )
    assert ok.status_code == 201


def test_a_refused_write_is_refused_before_its_body_is_read(cluster):
    """A 20 MB body from an anonymous caller is 403 (not 413): the body was never read."""
    response = Client().generic("POST", PODS, b"x" * (20 * 1024 * 1024), content_type="application/json")
    assert response.status_code == 403
    assert response.json()["message"] == ANONYMOUS_CREATE

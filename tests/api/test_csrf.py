"""The REST API is open to kubectl (no cookies) but a browser's session cannot be forged into writes."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.api.conftest import PODS, pod_json

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api.urls")]


def logged_in_client() -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("teacher", is_staff=True))
    return client


def test_kubectl_without_cookies_needs_no_token(cluster):
    response = Client(enforce_csrf_checks=True).post(PODS, pod_json("web"), content_type="application/json")
    assert response.status_code == 201


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

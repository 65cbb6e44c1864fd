"""Password logins are throttled per address and per user name (429 with Retry-After, no password
checked meanwhile) and never lock the right password out for good."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db
LOGIN = "/admin/login/"


@pytest.fixture
def teacher(settings):
    # A fast hasher: the window must not slide away while the test spends it on hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return get_user_model().objects.create_superuser("teacher", password="right-horse-battery")


def attempt(client: Client, password: str, username: str = "teacher"):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})


def test_twenty_wrong_passwords_get_429_and_the_right_one_then_works(teacher, settings):
    settings.KUBESIM_LOGIN_WINDOW_SECONDS = 3
    client = Client()
    codes = [attempt(client, f"wrong-{i}").status_code for i in range(20)]
    assert codes == [200] * 10 + [429] * 10
    throttled = attempt(client, "wrong-again")
    assert throttled.status_code == 429
    assert 1 <= int(throttled["Retry-After"]) <= 3
    assert "Too many failed logins" in throttled.content.decode()
    # While throttled no password is checked, the right one included: a guesser learns nothing.
    assert attempt(client, "right-horse-battery").status_code == 429
    time.sleep(int(throttled["Retry-After"]))
    right = attempt(client, "right-horse-battery")
    assert right.status_code == 302 and right["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_failures_from_many_addresses_lock_the_user_name_but_not_the_teachers_own_browser(teacher):
    own = Client()
    assert attempt(own, "right-horse-battery").status_code == 302  # this browser is known now
    own.post("/admin/logout/")
    for address in range(20):
        guesser = Client(REMOTE_ADDR=f"10.0.0.{address}")
        assert attempt(guesser, "wrong").status_code == 200
    assert attempt(Client(REMOTE_ADDR="10.0.1.1"), "right-horse-battery").status_code == 429
    assert attempt(own, "right-horse-battery").status_code == 302


def test_one_address_cannot_try_user_name_after_user_name(teacher):
    client = Client()
    codes = [attempt(client, "x", username=f"user{i}").status_code for i in range(12)]
    assert codes == [200] * 10 + [429] * 2

"""The cluster's clock over HTTP: what it reads and when each CronJob runs next, and the
teacher's jump to the next schedule (a lesson cannot wait a minute per run)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client

from cluster.apiserver import service as api
from tests.controllers.test_cronjobs import hello
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
START = datetime(2026, 3, 2, 9, 0, 30, tzinfo=UTC)


def test_the_teacher_jumps_the_clock_to_the_next_schedule(demo, client, fake_clock):
    fake_clock._now = START
    drive()
    api.create(demo, hello(schedule="0 * * * *"), KUBECTL)
    drive()
    state = client.get("/clusters/demo/clock").json()
    assert state["clockOffset"] == 0 and state["now"] == "2026-03-02T09:00:30Z"
    assert state["cronJobs"] == [
        {
            "namespace": "default",
            "name": "hello",
            "schedule": "0 * * * *",
            "timeZone": None,
            "suspend": False,
            "nextRun": "2026-03-02T10:00:00Z",
            "inSeconds": 3570,
        }
    ]
    jumped = client.post("/clusters/demo/clock", {"to": "next-schedule"}, "application/json").json()
    assert jumped["jumpedSeconds"] == 3571 and jumped["cronJob"] == "default/hello"
    assert jumped["now"] == "2026-03-02T10:00:01Z"
    drive()
    (job,) = api.list_objects(demo, "Job", "default")[0]
    assert job["metadata"]["ownerReferences"][0]["name"] == "hello"
    again = client.post("/clusters/demo/clock", {"seconds": 60}, "application/json").json()
    assert again["clockOffset"] == 3631 and again["cronJobs"][0]["nextRun"] == "2026-03-02T11:00:00Z"


def test_only_the_teacher_moves_the_clock_and_bad_jumps_are_refused(demo, client):
    student = Client(enforce_csrf_checks=True)
    page = student.get("/clusters/demo/")
    csrf = {"X-CSRFToken": page.cookies["csrftoken"].value}
    client.post("/clusters/demo/policy", {"class_may_write": True}, "application/json")
    refused = student.post("/clusters/demo/clock", {"seconds": 60}, "application/json", headers=csrf)
    assert refused.status_code == 403 and refused.json()["reason"] == "Forbidden"
    assert student.get("/clusters/demo/clock").status_code == 200  # anyone who sees the cluster reads it
    for body in (
        {"seconds": -5},
        {"seconds": "soon"},
        {"seconds": 10**9},
        {"to": "tomorrow"},
        {"to": "next-schedule"},
    ):
        answer = client.post("/clusters/demo/clock", body, "application/json")
        assert answer.status_code == 400 and answer.json()["kind"] == "Status", body
    assert client.get("/clusters/demo/clock").json()["clockOffset"] == 0

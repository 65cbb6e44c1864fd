"""CronJobs with the real kubectl: create cronjob, its table and describe as kubectl prints them,
create job --from=cronjob/NAME, the schedule refused in the API server's words, and a scheduled
run reached by the teacher's jump of the cluster's clock."""

from __future__ import annotations

import json
import re

import pytest

from cluster.kinds.batch.cronjob import describe_cron_job
from cluster.kubeapi.describe import involves, with_events
from k8s import clock
from tests.kubectl.conftest import Kubectl, own_demo
from tests.support.clock import jump_clock
from tests.support.waiting import wait_for, without_ages

pytestmark = pytest.mark.kubectl
CLUSTER = "clocked"  # a cluster of its own: the jump moves its clock, not the shared demo's


@pytest.fixture(scope="module")
def clocked(kubesim, kubectl) -> Kubectl:
    return own_demo(kubesim, kubectl, CLUSTER)


def jobs(kubectl) -> list[dict]:
    return json.loads(kubectl.ok("get", "jobs", "-o", "json"))["items"]


def jump(kubesim, body: dict) -> dict:
    return jump_clock(kubesim.http, CLUSTER, body)


def test_create_cronjob_and_a_job_from_it(clocked, kubesim):
    kubectl = clocked
    assert (
        kubectl.ok(
            "create", "cronjob", "tick", "--image=busybox:1.36", "--schedule=0 * * * *", "--", "echo", "hi"
        )
        == "cronjob.batch/tick created\n"
    )
    try:
        table = kubectl.ok("get", "cronjob", "tick")
        assert re.fullmatch(
            r"NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\n"
            r"tick\s+0 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s\n",
            table,
        )
        assert (
            kubectl.ok("create", "job", "tick-manual", "--from=cronjob/tick")
            == "job.batch/tick-manual created\n"
        )
        assert wait_for(
            lambda: any(
                j["metadata"]["name"] == "tick-manual" and j["status"].get("succeeded") == 1
                for j in jobs(kubectl)
            )
        )
        manual = next(j for j in jobs(kubectl) if j["metadata"]["name"] == "tick-manual")
        assert manual["metadata"]["annotations"]["cronjob.kubernetes.io/instantiate"] == "manual"
        assert manual["metadata"]["ownerReferences"][0]["kind"] == "CronJob"

        # The teacher's jump: the next run comes now, on the cluster's clock.
        state = jump(kubesim, {"to": "next-schedule", "cronJob": {"namespace": "default", "name": "tick"}})
        assert state["cronJob"] == "default/tick"
        assert wait_for(lambda: any(j["metadata"]["name"].startswith("tick-2") for j in jobs(kubectl)))
        scheduled = next(j for j in jobs(kubectl) if j["metadata"]["name"].startswith("tick-2"))
        assert scheduled["metadata"]["annotations"][
            "batch.kubernetes.io/cronjob-scheduled-timestamp"
        ].endswith(":00:00Z")
        # LAST SCHEDULE filled in (TIMEZONE stays <none>: the CronJob names none).
        assert wait_for(
            lambda: kubectl.ok(
                "get", "cronjob", "tick", "-o", "jsonpath={.status.lastScheduleTime}"
            ).endswith(":00:00Z")
        )

        out = kubectl.ok("describe", "cronjob", "tick")
        cj = json.loads(kubectl.ok("get", "cronjob", "tick", "-o", "json"))
        events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
        ours = with_events(describe_cron_job(cj), [e for e in events if involves(e, cj)], clock.now())
        # kubectl computes event ages on its own clock, which the jump left behind: ages aside.
        assert without_ages(ours).split("Events:")[0] == without_ages(out).split("Events:")[0]
    finally:
        kubectl.run("delete", "cronjob", "tick")


def test_a_bad_schedule_is_refused_in_the_api_servers_words(kubectl):
    out = kubectl.run("create", "cronjob", "bad", "--image=busybox:1.36", "--schedule=61 * * * *")
    assert out.returncode == 1
    assert (
        'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61' in out.stderr
    )
    tz = kubectl.run("create", "cronjob", "bad", "--image=busybox:1.36", "--schedule=TZ=UTC 0 * * * *")
    assert "cannot use TZ or CRON_TZ in schedule, use timeZone field instead" in tz.stderr

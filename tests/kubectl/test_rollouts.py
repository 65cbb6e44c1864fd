"""Rollouts with the real kubectl: history with change-cause, an undo of a broken image that
completes, restart, pause and resume, a progress deadline that `rollout status` reports as
kubectl does, and a DaemonSet's history and undo through its ControllerRevisions."""

from __future__ import annotations

import json
import re

import pytest

from cluster.controllers.deployment import util
from cluster.kinds.apps.deployment import describe_deployment
from cluster.kubeapi.describe import involves, with_events
from k8s import clock
from tests.support.waiting import wait_for, without_ages

pytestmark = pytest.mark.kubectl
IMAGE = "{.spec.template.spec.containers[0].image}"


def rollout_status(kubectl, target: str, seconds: int = 60):
    return kubectl.run("rollout", "status", target, f"--timeout={seconds}s", timeout=seconds + 10)


def replica_sets(kubectl, app: str) -> list[dict]:
    return json.loads(kubectl.ok("get", "rs", "-l", f"app={app}", "-o", "json"))["items"]


def test_a_broken_image_is_undone_and_the_rollout_completes_with_the_old_image(kubectl):
    kubectl.ok("create", "deployment", "rollweb", "--image=nginx:1.15")
    try:
        assert rollout_status(kubectl, "deploy/rollweb").returncode == 0
        kubectl.ok("set", "image", "deploy/rollweb", "nginx=nginx:1.16")
        kubectl.ok("annotate", "deploy/rollweb", "kubernetes.io/change-cause=image updated to 1.16")
        assert rollout_status(kubectl, "deploy/rollweb").returncode == 0
        assert kubectl.ok("rollout", "history", "deploy/rollweb") == (
            "deployment.apps/rollweb \nREVISION  CHANGE-CAUSE\n"
            "1         <none>\n2         image updated to 1.16\n\n"
        )
        revision_2 = kubectl.ok("rollout", "history", "deploy/rollweb", "--revision=2")
        assert revision_2.startswith("deployment.apps/rollweb with revision #2\nPod Template:\n")
        assert "    Image:\tnginx:1.16\n" in revision_2
        assert "  Annotations:\tkubernetes.io/change-cause: image updated to 1.16\n" in revision_2

        kubectl.ok("set", "image", "deploy/rollweb", "nginx=nginx:no-such-tag")
        assert wait_for(lambda: len(replica_sets(kubectl, "rollweb")) == 3)
        stuck = rollout_status(kubectl, "deploy/rollweb", seconds=3)
        assert stuck.returncode == 1
        assert (
            'Waiting for deployment "rollweb" rollout to finish: 1 old replicas are pending termination'
            in (stuck.stdout)
        )
        assert kubectl.ok("rollout", "undo", "deploy/rollweb") == "deployment.apps/rollweb rolled back\n"
        done = rollout_status(kubectl, "deploy/rollweb")
        assert done.returncode == 0 and 'deployment "rollweb" successfully rolled out' in done.stdout
        image = kubectl.ok(
            "get", "deploy", "rollweb", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
        )
        assert image == "nginx:1.16"
        assert wait_for(
            lambda: (
                {
                    p["spec"]["containers"][0]["image"]
                    for p in json.loads(kubectl.ok("get", "pods", "-l", "app=rollweb", "-o", "json"))["items"]
                }
                == {"nginx:1.16"}
            )
        )
        # The broken revision kept the change-cause the Deployment had then, as a real cluster's does.
        assert kubectl.ok("rollout", "history", "deploy/rollweb") == (
            "deployment.apps/rollweb \nREVISION  CHANGE-CAUSE\n1         <none>\n"
            "3         image updated to 1.16\n4         image updated to 1.16\n\n"
        )
        skipped = kubectl.ok("rollout", "undo", "deploy/rollweb", "--to-revision=4")
        assert (
            skipped
            == "deployment.apps/rollweb skipped rollback (current template already matches revision 4)\n"
        )
        annotations = json.loads(kubectl.ok("get", "deploy", "rollweb", "-o", "json"))["metadata"][
            "annotations"
        ]
        assert annotations[util.REVISION] == "4"
    finally:
        kubectl.run("delete", "deployment", "rollweb")


def test_restart_pause_and_resume(kubectl):
    kubectl.ok("create", "deployment", "pausable", "--image=nginx:1.15")
    try:
        assert rollout_status(kubectl, "deploy/pausable").returncode == 0
        assert kubectl.ok("rollout", "restart", "deploy/pausable") == "deployment.apps/pausable restarted\n"
        assert rollout_status(kubectl, "deploy/pausable").returncode == 0
        assert len(replica_sets(kubectl, "pausable")) == 2
        assert kubectl.ok("rollout", "pause", "deploy/pausable") == "deployment.apps/pausable paused\n"

        def progressing() -> dict:
            status = json.loads(kubectl.ok("get", "deploy", "pausable", "-o", "json"))["status"]
            return util.get_condition(status, util.PROGRESSING) or {}

        assert wait_for(lambda: progressing().get("reason") == "DeploymentPaused")
        assert (progressing()["status"], progressing()["message"]) == ("Unknown", "Deployment is paused")
        kubectl.ok("set", "image", "deploy/pausable", "nginx=nginx:1.16")
        undo = kubectl.run("rollout", "undo", "deploy/pausable")
        assert undo.returncode == 1
        assert undo.stderr == (
            "error: you cannot rollback a paused deployment; resume it first with "
            "'kubectl rollout resume' and try again\n"
        )
        assert len(replica_sets(kubectl, "pausable")) == 2  # paused: no new ReplicaSet
        assert kubectl.ok("rollout", "resume", "deploy/pausable") == "deployment.apps/pausable resumed\n"
        assert rollout_status(kubectl, "deploy/pausable").returncode == 0
        assert len(replica_sets(kubectl, "pausable")) == 3
    finally:
        kubectl.run("delete", "deployment", "pausable")


def test_rollout_status_fails_past_the_progress_deadline(kubectl):
    kubectl.ok("create", "deployment", "deadline", "--image=nginx:1.15")
    try:
        assert rollout_status(kubectl, "deploy/deadline").returncode == 0
        kubectl.ok("patch", "deploy/deadline", "-p", '{"spec":{"progressDeadlineSeconds":3}}')
        kubectl.ok("set", "image", "deploy/deadline", "nginx=nginx:no-such-tag")
        out = rollout_status(kubectl, "deploy/deadline", seconds=30)
        assert out.returncode == 1
        assert out.stderr == 'error: deployment "deadline" exceeded its progress deadline\n'
        describe = kubectl.ok("describe", "deploy", "deadline")
        assert re.search(r"^  Progressing\s+False\s+ProgressDeadlineExceeded$", describe, re.M)
    finally:
        kubectl.run("delete", "deployment", "deadline")


def test_describe_deployment_after_a_rollout_is_kubectls_text(kubectl):
    kubectl.ok("create", "deployment", "described-deploy", "--image=nginx:1.15", "--replicas=2")
    try:
        assert rollout_status(kubectl, "deploy/described-deploy").returncode == 0
        kubectl.ok("set", "image", "deploy/described-deploy", "nginx=nginx:1.16")
        assert rollout_status(kubectl, "deploy/described-deploy").returncode == 0
        out = kubectl.ok("describe", "deploy", "described-deploy")
        deployment = json.loads(kubectl.ok("get", "deploy", "described-deploy", "-o", "json"))
        sets = util.by_creation(replica_sets(kubectl, "described-deploy"))
        new = util.find_new_replica_set(deployment, sets)
        events = json.loads(kubectl.ok("get", "events", "-o", "json"))["items"]
        ours = with_events(
            describe_deployment(deployment, [rs for rs in sets if rs is not new], new),
            [e for e in events if involves(e, deployment)],
            clock.now(),
        )
        assert without_ages(ours) == without_ages(out)
    finally:
        kubectl.run("delete", "deployment", "described-deploy")


DAEMON_SET = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: historic
spec:
  selector:
    matchLabels: {app: historic}
  template:
    metadata:
      labels: {app: historic}
    spec:
      containers:
      - name: agent
        image: nginx:1.27
"""


def test_a_daemon_sets_history_and_undo_read_its_controller_revisions(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=DAEMON_SET)
    try:
        assert rollout_status(kubectl, "ds/historic").returncode == 0
        kubectl.ok("annotate", "ds/historic", "kubernetes.io/change-cause=to 1.25")
        kubectl.ok("set", "image", "ds/historic", "agent=nginx:1.25")
        assert rollout_status(kubectl, "ds/historic").returncode == 0
        assert kubectl.ok("rollout", "history", "ds/historic") == (
            "daemonset.apps/historic \nREVISION  CHANGE-CAUSE\n1         <none>\n2         to 1.25\n\n"
        )
        table = kubectl.ok("get", "controllerrevisions", "-l", "app=historic")
        assert re.search(r"^historic-\w+\s+daemonset\.apps/historic\s+2\s+\d+s$", table, re.M)
        assert kubectl.ok("rollout", "undo", "ds/historic") == "daemonset.apps/historic rolled back\n"
        assert rollout_status(kubectl, "ds/historic").returncode == 0
        image = kubectl.ok(
            "get", "ds", "historic", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
        )
        assert image == "nginx:1.27"
        assert kubectl.ok("rollout", "undo", "ds/historic", "--to-revision=3") == (
            "daemonset.apps/historic skipped rollback (current template already matches revision 3)\n"
        )
    finally:
        kubectl.run("delete", "ds", "historic")

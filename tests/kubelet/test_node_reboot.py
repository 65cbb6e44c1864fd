"""A server that restarts finds Running pods without their processes: its kubelet starts their
containers again as a kubelet does after its node rebooted."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.client.informer import db
from cluster.controlplane import runtime
from cluster.kubelet import attach
from cluster.kubelet.logs import read_log
from tests.kubelet.test_attach import Client
from tests.kubelet.test_containers_run import pod, status
from tests.support.demo import KUBECTL, drive, drive_until, example

pytestmark = pytest.mark.django_db(transaction=True)

LOOP = "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"


def _events(cluster, name: str) -> dict[tuple[str, str], int]:
    """(reason, message) -> count (a repeated Event is counted on the first, as the recorder does)."""
    events, _ = api.list_objects(cluster, "Event", "default")
    return {(e["reason"], e["message"]): e["count"] for e in events if e["involvedObject"]["name"] == name}


def _server_restarts() -> None:
    """The server process goes, and the containers' processes with it; the next one starts a new
    control plane that lists the cluster afresh."""
    lost = runtime._running.pop("demo")
    async_to_sync(db(lost.kubelets.processes.kill_all))()


def test_running_containers_start_again_as_after_a_reboot(demo, fake_clock):
    drive()
    api.create(demo, pod("ticker", "sh", "-c", LOOP), KUBECTL)
    drive()
    fake_clock.advance(1)
    drive()
    before = status(demo, "ticker")["containerStatuses"][0]
    seen = _events(demo, "ticker")
    _server_restarts()
    fake_clock.advance(30)
    drive()

    got = status(demo, "ticker")
    entry = got["containerStatuses"][0]
    assert got["phase"] == "Running" and "running" in entry["state"] and entry["ready"]
    assert entry["restartCount"] == 1 and entry["containerID"] != before["containerID"]
    assert entry["lastState"]["terminated"] == {
        "exitCode": 255,
        "reason": "Unknown",
        "startedAt": before["state"]["running"]["startedAt"],
        "finishedAt": entry["state"]["running"]["startedAt"],
        "containerID": before["containerID"],
    }
    assert got["podIP"] and got["startTime"]
    after = _events(demo, "ticker")
    assert {
        event: count - seen.get(event, 0) for event, count in after.items() if count != seen.get(event)
    } == {
        ("SandboxChanged", "Pod sandbox changed, it will be killed and re-created."): 1,
        ("Pulled", 'Container image "busybox:1.36" already present on machine'): 1,
        ("Created", "Created container: ticker"): 1,
        ("Started", "Started container ticker"): 1,
    }
    # The lost run's log is the previous one; the new run prints from its start.
    assert read_log(demo, "default", "ticker", previous=True) == "tick 0\ntick 1\n"
    assert read_log(demo, "default", "ticker") == "tick 0\n"
    fake_clock.advance(1)
    drive()
    assert read_log(demo, "default", "ticker") == "tick 0\ntick 1\n"


def test_init_containers_run_again_first(demo, fake_clock):
    drive()
    body = pod("app", "sh", "-c", LOOP)
    body["spec"]["initContainers"] = [{"name": "setup", "image": "busybox:1.36", "command": ["true"]}]
    api.create(demo, body, KUBECTL)
    drive()
    assert status(demo, "app")["phase"] == "Running"
    _server_restarts()
    drive()
    got = status(demo, "app")
    init, app = got["initContainerStatuses"][0], got["containerStatuses"][0]
    assert init["restartCount"] == 1 and init["state"]["terminated"]["reason"] == "Completed"
    assert init["lastState"]["terminated"]["reason"] == "Completed"
    assert app["restartCount"] == 1 and "running" in app["state"]
    assert app["lastState"]["terminated"]["reason"] == "Unknown"


def test_with_restart_policy_never_the_pod_fails(demo):
    drive()
    api.create(demo, pod("once", "sh", "-c", LOOP, restart="Never"), KUBECTL)
    drive()
    before = status(demo, "once")["containerStatuses"][0]
    seen = _events(demo, "once")
    _server_restarts()
    drive()
    got = status(demo, "once")
    entry = got["containerStatuses"][0]
    assert got["phase"] == "Failed" and entry["restartCount"] == 0 and not entry["ready"]
    assert entry["state"]["terminated"]["exitCode"] == 255
    assert entry["state"]["terminated"]["containerID"] == before["containerID"]
    assert _events(demo, "once") == seen


def test_a_control_plane_stopped_by_its_own_server_takes_its_pods_back_as_they_are(demo):
    drive()
    api.create(demo, example("pod-nodename.yaml"), KUBECTL)
    drive()
    before = status(demo, "pod-example")
    async_to_sync(runtime.stop)("demo")  # parked: this process stopped it, nothing was lost
    drive()
    assert status(demo, "pod-example")["containerStatuses"] == before["containerStatuses"]


def _point(cluster, name: str) -> attach.Point | None:
    entry = status(cluster, name)["containerStatuses"][0]
    return attach.find(cluster.name, entry["containerID"])


def _running_shell(cluster) -> attach.Point:
    """A pod whose shell reads its stdin, Running; its process's attach point."""
    drive()
    body = pod("shell", "sh")
    body["spec"]["containers"][0]["stdin"] = True
    api.create(cluster, body, KUBECTL)
    drive()
    return _point(cluster, "shell")


def test_a_parked_cluster_keeps_its_processes_and_the_woken_kubelet_takes_them_back(demo):
    point = _running_shell(demo)
    point.feed(b"x=kept; echo before\n")
    drive()
    before, seen = status(demo, "shell")["containerStatuses"][0], _events(demo, "shell")
    async_to_sync(runtime.stop)("demo", keep_processes=True)  # parked
    assert "demo" not in runtime._running and _point(demo, "shell") is point
    drive()  # woken: a new control plane, the same process

    client = Client()
    assert point.attach(client) == ([], False)
    point.feed(b"echo $x\n")  # the shell's own variable: the same process
    drive()
    assert client.text == "kept\n"
    assert status(demo, "shell")["containerStatuses"][0] == before
    assert _events(demo, "shell") == seen  # no SandboxChanged, no restart
    drive_until(lambda: read_log(demo, "default", "shell") == "before\nkept\n")
    api.delete(demo, "Pod", "default", "shell", KUBECTL, grace_period=0)
    drive()
    assert point.ended  # the woken kubelet owns the process: a deletion kills it


def test_a_parked_cluster_stopped_for_good_has_its_kept_processes_killed(demo):
    point, before = _running_shell(demo), status(demo, "shell")["containerStatuses"]
    async_to_sync(runtime.stop)("demo", keep_processes=True)
    async_to_sync(runtime.stop)("demo")  # led elsewhere now, or deleted
    assert point.ended and _point(demo, "shell") is None
    drive()  # taken back as it was: this process stopped it, nothing to adopt
    assert status(demo, "shell")["containerStatuses"] == before

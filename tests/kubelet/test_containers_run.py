"""The kubelet runs what each container says: its log, its exit, its restarts, init containers."""

from __future__ import annotations

import time

import pytest
from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controlplane import runtime
from cluster.kubelet.logs import read_log
from cluster.models import ContainerLogChunk
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)


def pod(name: str, *argv: str, restart: str = "Always", image: str = "busybox:1.36", **spec) -> dict:
    body = example("pod-nodename.yaml")
    body["metadata"]["name"] = name
    container = {"name": name, "image": image}
    if argv:
        container["command"] = list(argv)
    body["spec"]["containers"] = [container]
    body["spec"]["restartPolicy"] = restart
    body["spec"].update(spec)
    return body


def status(demo, name: str) -> dict:
    return api.get(demo, "Pod", "default", name)["status"]


def test_a_command_that_ends_completes_and_its_output_is_the_log(demo):
    drive()
    api.create(demo, pod("hello", "echo", "hello", restart="Never"), KUBECTL)
    drive()
    got = status(demo, "hello")
    assert got["phase"] == "Succeeded"
    (container,) = got["containerStatuses"]
    terminated = container["state"]["terminated"]
    assert terminated["exitCode"] == 0 and terminated["reason"] == "Completed"
    assert terminated["containerID"] == container["containerID"]
    assert read_log(demo, "default", "hello") == "hello\n"
    stamped = read_log(demo, "default", "hello", timestamps=True)
    assert stamped.endswith("Z hello\n") and stamped[:4].isdigit() and len(stamped.split(" ")[0]) == 30


def test_a_script_prints_then_keeps_running(demo):
    drive()
    api.create(demo, pod("echosleep", "sh", "-c", "echo started; sleep 3600"), KUBECTL)
    drive()
    got = status(demo, "echosleep")
    assert got["phase"] == "Running"
    assert "running" in got["containerStatuses"][0]["state"]
    assert read_log(demo, "default", "echosleep") == "started\n"


def test_an_exit_code_fails_the_pod_and_restarts_back_off(demo, fake_clock):
    drive()
    api.create(demo, pod("fails", "sh", "-c", "echo oops >&2; exit 3", restart="Never"), KUBECTL)
    api.create(demo, pod("crashes", "sh", "-c", "echo run; exit 1"), KUBECTL)
    drive()
    failed = status(demo, "fails")
    assert failed["phase"] == "Failed"
    terminated = failed["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (3, "Error")
    assert read_log(demo, "default", "fails") == "oops\n"
    # The first restart is at once, then 10 s, 20 s, … in CrashLoopBackOff.
    crash = status(demo, "crashes")["containerStatuses"][0]
    assert crash["restartCount"] == 1
    assert crash["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert crash["state"]["waiting"]["message"].startswith(
        "back-off 10s restarting failed container=crashes pod="
    )
    assert crash["lastState"]["terminated"]["exitCode"] == 1
    fake_clock.advance(10)
    drive()
    crash = status(demo, "crashes")["containerStatuses"][0]
    assert crash["restartCount"] == 2
    assert crash["state"]["waiting"]["message"].startswith("back-off 20s ")
    assert read_log(demo, "default", "crashes", previous=True) == "run\n"
    fake_clock.advance(20)
    drive()
    # One dead container is kept per container, with its log: waiting in back-off, only the last run.
    uid = api.get(demo, "Pod", "default", "crashes")["metadata"]["uid"]
    runs = set(
        ContainerLogChunk.objects.filter(cluster=demo, pod_uid=uid).values_list("container_id", flat=True)
    )
    assert status(demo, "crashes")["containerStatuses"][0]["restartCount"] == 3 and len(runs) == 1
    with pytest.raises(ApiError) as error:
        read_log(demo, "default", "fails", previous=True)
    assert error.value.message == 'previous terminated container "fails" in pod "fails" not found'


def test_a_loop_keeps_running_and_its_log_grows(demo, fake_clock):
    drive()
    api.create(
        demo,
        pod("ticker", "sh", "-c", "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"),
        KUBECTL,
    )
    drive()
    for _ in range(3):
        fake_clock.advance(1)
        drive()
    got = status(demo, "ticker")["containerStatuses"][0]
    assert "running" in got["state"] and got["restartCount"] == 0
    assert read_log(demo, "default", "ticker") == "tick 0\ntick 1\ntick 2\ntick 3\n"
    assert read_log(demo, "default", "ticker", tail_lines=1) == "tick 3\n"


def test_init_containers_run_in_order_before_the_app(demo):
    drive()
    body = pod("web", image="nginx:1.25")
    body["spec"]["initContainers"] = [
        {"name": "first", "image": "busybox:1.36", "command": ["sh", "-c", "echo one"]},
        {"name": "second", "image": "busybox:1.36", "command": ["sh", "-c", "echo two"]},
    ]
    api.create(demo, body, KUBECTL)
    drive()
    got = status(demo, "web")
    assert got["phase"] == "Running"
    inits = got["initContainerStatuses"]
    assert [c["state"]["terminated"]["reason"] for c in inits] == ["Completed", "Completed"]
    assert read_log(demo, "default", "web", container="second") == "two\n"
    assert "running" in got["containerStatuses"][0]["state"]


def test_a_failing_init_container_holds_the_pod(demo):
    drive()
    body = pod("blocked", image="nginx:1.25")
    body["spec"]["initContainers"] = [
        {"name": "check", "image": "busybox:1.36", "command": ["sh", "-c", "exit 1"]}
    ]
    api.create(demo, body, KUBECTL)
    never = pod("never", image="nginx:1.25", restart="Never")
    never["spec"]["initContainers"] = body["spec"]["initContainers"]
    api.create(demo, never, KUBECTL)
    drive()
    got = status(demo, "blocked")
    assert got["phase"] == "Pending"
    init = got["initContainerStatuses"][0]
    assert init["state"]["waiting"]["reason"] == "CrashLoopBackOff" and init["restartCount"] == 1
    assert got["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    initialized = {c["type"]: c for c in got["conditions"]}["Initialized"]
    assert (
        initialized["status"] == "False"
        and initialized["message"] == "containers with incomplete status: [check]"
    )
    assert status(demo, "never")["phase"] == "Failed"


def test_a_sidecar_writes_a_shared_empty_dir_that_the_app_reads(demo, fake_clock):
    drive()
    body = pod("shared", "sh", "-c", "while true; do cat /data/out; sleep 1; done")
    body["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
    body["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    body["spec"]["initContainers"] = [
        {
            "name": "writer",
            "image": "busybox:1.36",
            "restartPolicy": "Always",
            "command": [
                "sh",
                "-c",
                "i=0; while true; do echo line $i >> /data/out; i=$((i+1)); sleep 1; done",
            ],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        }
    ]
    api.create(demo, body, KUBECTL)
    drive()
    for _ in range(3):
        fake_clock.advance(1)
        drive()
    got = status(demo, "shared")
    assert got["phase"] == "Running"
    assert "running" in got["initContainerStatuses"][0]["state"] and got["initContainerStatuses"][0]["ready"]
    assert "line 2\n" in read_log(demo, "default", "shared", container="shared")


def test_a_busy_loop_is_throttled_and_ends_with_its_pod(demo):
    """`while true; do :; done` runs on (Running), takes at most the containers' CPU share, and is
    killed (137) the moment its pod is deleted: nothing of it runs afterwards."""
    drive()
    api.create(demo, pod("spin", "sh", "-c", "while true; do :; done"), KUBECTL)
    drive()
    plane = runtime._running["demo"]
    (run,) = plane.kubelets.processes.runs.values()
    assert status(demo, "spin")["phase"] == "Running"
    began, cpu = time.perf_counter(), run.process.cpu_seconds
    while time.perf_counter() - began < 1.0:
        async_to_sync(plane.kubelets.follow_processes)()
        time.sleep(0.005)
    used = run.process.cpu_seconds - cpu
    assert 0 < used < 0.25  # KUBESIM_CONTAINER_CPU_SHARE is 10% of a core
    api.delete(demo, "Pod", "default", "spin", KUBECTL, grace_period=0)
    drive()
    assert plane.kubelets.processes.runs == {}
    assert run.process.exit_code == 137
    after = run.process.cpu_seconds
    async_to_sync(plane.kubelets.follow_processes)()
    assert run.process.cpu_seconds == after
    with pytest.raises(ApiError):
        read_log(demo, "default", "spin")


def test_a_fault_of_the_simulation_fails_only_its_container(demo, monkeypatch):
    from cluster.shell import commands

    def broken(sh, argv, io):
        raise RuntimeError("a bug")

    monkeypatch.setitem(commands.PROGRAMS, "hostname", broken)
    drive()
    api.create(demo, pod("faulty", "hostname", restart="Never"), KUBECTL)
    api.create(demo, pod("fine", "echo", "ok", restart="Never"), KUBECTL)
    drive()
    terminated = status(demo, "faulty")["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (1, "Error")
    assert read_log(demo, "default", "fine") == "ok\n"

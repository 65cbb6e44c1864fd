"""A container's own process behind `kubectl attach`: its stdin wakes it, its output reaches the
attached clients, stdinOnce closes stdin with the first client; ephemeral containers start beside
the others and are reported apart."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.kubelet import attach
from cluster.kubelet.logs import read_log
from cluster.shell.pods import running_container_id
from tests.kubelet.test_containers_run import pod as plain_pod
from tests.kubelet.test_containers_run import status
from tests.support.demo import KUBECTL, drive, drive_until

pytestmark = pytest.mark.django_db(transaction=True)


class Client:
    def __init__(self) -> None:
        self.frames: list[tuple[int, bytes]] = []
        self.ended = False

    def send(self, channel: int, data: bytes) -> None:
        self.frames.append((channel, data))

    def end(self) -> None:
        self.ended = True

    @property
    def text(self) -> str:
        return b"".join(data for _, data in self.frames).decode()


def pod(name: str, *argv: str, restart: str = "Always", **container) -> dict:
    body = plain_pod(name, *argv, restart=restart)
    body["spec"]["containers"][0].update(container)
    return body


def _point(demo, name: str, container: str = "") -> attach.Point:
    current = api.get(demo, "Pod", "default", name)
    found = attach.find(demo.name, running_container_id(current, container or name) or "")
    assert found is not None
    return found


def test_typed_lines_run_in_the_containers_shell_and_reach_the_client(demo):
    drive()
    api.create(demo, pod("shell", "sh", stdin=True), KUBECTL)
    drive()
    point = _point(demo, "shell")
    client = Client()
    early, ended = point.attach(client)
    assert (early, ended) == ([], False)  # stdinOnce is not set: no early output kept
    assert point.feed(b"echo one\nhostname\n")
    drive()
    assert client.text == "one\nshell\n"
    assert read_log(demo, "default", "shell") == "one\nshell\n"
    point.detach(client)
    point.close_stdin()  # not stdinOnce: the shell keeps reading
    assert point.feed(b"echo two\n")
    drive_until(lambda: read_log(demo, "default", "shell") == "one\nshell\ntwo\n")  # logs flush each second
    assert read_log(demo, "default", "shell") == "one\nshell\ntwo\n"
    assert client.text == "one\nshell\n"
    assert "running" in status(demo, "shell")["containerStatuses"][0]["state"]


def test_stdin_once_ends_the_process_with_its_first_client_and_keeps_its_early_output(demo):
    drive()
    api.create(demo, pod("once", "sh", restart="Never", stdin=True, stdinOnce=True), KUBECTL)
    drive()
    point = _point(demo, "once")
    point.feed(b"echo early\n")
    drive()
    client = Client()
    early, _ended = point.attach(client)
    assert early == [(1, b"early\n")]
    assert point.attach(Client())[0] == []  # only the first client gets it
    point.feed(b"exit 4\n")
    drive()
    assert client.ended
    terminated = status(demo, "once")["containerStatuses"][0]["state"]["terminated"]
    assert terminated["exitCode"] == 4


def test_a_flood_of_input_is_refused_and_containers_without_stdin_drop_it(demo):
    drive()
    api.create(demo, pod("quiet", "sleep", "3600"), KUBECTL)
    drive()
    point = _point(demo, "quiet")
    assert point.feed(b"x" * (attach.MAX_PENDING_BYTES + 1))  # no stdin: dropped, as the runtime does
    api.create(demo, pod("flooded", "sleep", "3600", stdin=True), KUBECTL)
    drive()
    assert not _point(demo, "flooded").feed(b"x" * (attach.MAX_PENDING_BYTES + 1))


def test_an_ephemeral_container_runs_beside_the_pod_and_is_reported_apart(demo):
    drive()
    api.create(demo, pod("target", "sleep", "3600"), KUBECTL)
    drive()
    debugger = {
        "name": "debugger",
        "image": "busybox:1.36",
        "command": ["sh", "-c", "echo debugging; sleep 3600"],
    }
    patch = {"spec": {"ephemeralContainers": [debugger]}}
    api.patch(
        demo, "Pod", "default", "target", patch, "application/strategic-merge-patch+json", KUBECTL,
        "ephemeralcontainers",
    )  # fmt: skip
    drive()
    got = status(demo, "target")
    assert [s["name"] for s in got["containerStatuses"]] == ["target"]
    (ephemeral,) = got["ephemeralContainerStatuses"]
    assert ephemeral["name"] == "debugger" and "running" in ephemeral["state"]
    assert ephemeral["ready"] is False
    assert got["phase"] == "Running"
    drive_until(lambda: read_log(demo, "default", "target", container="debugger") == "debugging\n")
    assert read_log(demo, "default", "target", container="debugger") == "debugging\n"


def test_an_ephemeral_container_of_an_unknown_image_waits_with_the_registrys_words(demo):
    drive()
    api.create(demo, pod("target2", "sleep", "3600"), KUBECTL)
    drive()
    patch = {"spec": {"ephemeralContainers": [{"name": "dbg", "image": "busybox:no-such-tag"}]}}
    api.patch(
        demo, "Pod", "default", "target2", patch, "application/strategic-merge-patch+json", KUBECTL,
        "ephemeralcontainers",
    )  # fmt: skip
    drive()
    got = status(demo, "target2")
    waiting = got["ephemeralContainerStatuses"][0]["state"]["waiting"]
    assert waiting["reason"] == "ErrImagePull"
    assert "manifest unknown" in waiting["message"] or "not found" in waiting["message"]
    assert got["phase"] == "Running" and "running" in got["containerStatuses"][0]["state"]


def test_a_read_loop_takes_each_typed_line_as_it_comes(demo):
    drive()
    api.create(
        demo, pod("reader", "sh", "-c", "while read line; do echo got $line; done", stdin=True), KUBECTL
    )
    drive()
    point = _point(demo, "reader")
    client = Client()
    point.attach(client)
    point.feed(b"one\n")
    drive()
    assert client.text == "got one\n"
    point.feed(b"two\n")
    drive()
    assert client.text == "got one\ngot two\n"


def test_a_debug_container_with_a_target_sees_the_targets_processes():
    from cluster.shell.context import ContainerContext
    from cluster.shell.profiles import profile_for
    from tests.shell.support import run

    ctx = ContainerContext(
        "demo", "default", "web", "debugger", "busybox:1.36", profile_for("busybox:1.36"), "docker://dbg",
        command=["sh"], shared_with=profile_for("nginx:1.25").processes,
    )  # fmt: skip
    out = run(["ps"], ctx=ctx)[1]
    assert out.splitlines()[1:4] == [
        "    1 root      0:00 nginx: master process nginx -g daemon off;",
        "   29 nginx     0:00 nginx: worker process",
        "   30 nginx     0:00 nginx: worker process",
    ]
    assert out.splitlines()[4] == "   37 root      0:00 sh"

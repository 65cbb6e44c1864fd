"""A student's lab panel on a web process of the scale-out profile stays open through a quiet
spell and is told when the step passes, as in the embedded default.

A web process receives every socket's messages through one blocking read from Redis that Redis
answers after 5 s when nothing came: with a client read timeout as short, the socket whose
receive it was closed after 5 s of quiet ("Timeout reading from" Redis), and a student waiting
for their pods was never told the step passed (kubesim/settings.py, CHANNEL_LAYERS)."""

from __future__ import annotations

import asyncio
import json

from bench.management.commands.bench_class import RC, Student, _passed
from bench.wsclient import connect
from tests.scaleout import workloads
from tests.scaleout.support import free_port, wait_for

SESSION = """
from django.contrib.auth import get_user_model
from bench.management.commands.bench_class import bench_lab
from labs.catalog import save_definition
from labs.models import ClassSession, LabDefinition
teacher, _ = get_user_model().objects.get_or_create(username="teacher", defaults={"is_staff": True})
definition = LabDefinition()
save_definition(definition, bench_lab(1))
definition.published = True
definition.save()
print(ClassSession.objects.create(lab=definition, teacher=teacher).code)
"""

SANDBOX = """
from cluster.auth.access import sandbox_token
from labs.models import Student
sandbox = Student.objects.select_related("sandbox").get(display_name="quiet student").sandbox
print(sandbox.name, sandbox_token(sandbox))
"""

QUIET_SECONDS = 12.0  # more than two of Redis's 5 s answers to a receive with nothing to receive


def _shell(scaled, code: str) -> str:
    return scaled.manage("shell", "-c", code).stdout.decode().strip().splitlines()[-1]


def test_a_lab_panel_quiet_for_longer_than_a_redis_receive_is_told_when_its_steps_pass(scaled):
    port = free_port()
    scaled.serve(port)
    scaled.controlplane("cp-a")
    base = f"http://127.0.0.1:{port}"
    wait_for(lambda: workloads.holder(f"{base}/clusters/demo") == "cp-a", 20, "cp-a to lead")
    code = _shell(scaled, SESSION)
    student = Student(port)
    student.join(code, "quiet student")
    student.sandbox, student.token = _shell(scaled, SANDBOX).split()
    nodes = f"/clusters/{student.sandbox}/api/v1/nodes/node1"

    async def lesson() -> list[dict]:
        sock = await connect(base, "/ws/labs/student/", token=student.token)
        try:
            assert await _passed(sock, 0, 0, timeout=10) is not None, "the panel's first state"
            await asyncio.sleep(QUIET_SECONDS)  # the student reads the instructions
            assert not sock.closed, "the panel's socket closed while nothing happened"
            steps = [
                (
                    "POST",
                    f"/clusters/{student.sandbox}/api/v1/namespaces/default/replicationcontrollers",
                    RC,
                    "application/json",
                ),
                ("PATCH", nodes, {"metadata": {"labels": {"step": "1"}}}, "application/merge-patch+json"),
            ]
            for number, (method, path, body, content_type) in enumerate(steps, start=1):
                seen = len(sock.frames)
                await asyncio.to_thread(student.write, method, path, body, content_type)
                assert await _passed(sock, seen, number) is not None, f"step {number}'s result"
            # The last step passes once the control plane has the RC's 5 pods Running.
            assert await _passed(sock, 0, len(steps) + 1, timeout=40) is not None, (
                f"the last step's result (socket closed: {sock.closed})"
            )
            return [json.loads(sock.buffer[begin:end]) for begin, end, _ in sock.frames]
        finally:
            sock.close()
            student.close()

    frames = asyncio.run(lesson())
    assert frames[-1]["state"]["current"] == 3, frames[-1]
    assert "Timeout reading from" not in scaled.log_tail(200), scaled.log_tail()

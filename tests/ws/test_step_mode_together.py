"""Step mode tells one story per trace: a workload's replicas go through a step together, one
"next" per step for all of them, and the page learns from the server when a step waits."""

from __future__ import annotations

import asyncio

import pytest

from cluster.controlplane import runtime
from tests.support.demo import example
from tests.ws.messages import check
from tests.ws.test_cluster_socket import connect, create, drain, steps_of

pytestmark = pytest.mark.django_db(transaction=True)


def gate_of(messages: list[dict], trace: str, known: int) -> int:
    """The step the trace waits at after `messages` (flow.gate), starting from `known`."""
    for message in messages:
        if message["type"] == "flow.gate" and message["trace"] == trace:
            known = message["step"]
    return known


async def test_an_rc_of_three_goes_through_each_step_together_one_next_each(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    plane = runtime.ControlPlane("demo")
    plane.start()
    try:
        await communicator.send_json_to({"action": "step_mode", "on": True})
        await drain(communicator)
        await create(demo, example("rc-nginx.yaml"))  # 3 replicas
        messages = await drain(communicator)
        trace = steps_of(messages)[0]["trace"]
        waiting = gate_of(messages, trace, 0)
        presses, seen = [], list(messages)
        for _ in range(20):
            if not waiting:
                break
            await communicator.send_json_to({"action": "next", "trace": trace})
            got = await drain(communicator)
            seen += got
            for message in got:
                check(message)
            numbers = {s["step"] for s in steps_of(got, trace)}
            presses.append((waiting, sorted(numbers)))
            assert numbers == {waiting}, presses  # the step that waited happened, for every pod
            waiting = gate_of(got, trace, waiting)
        # One press a step (9 in all) when the replicas reach each step together; a pod that
        # reaches one later (its image still pulling) takes a press of its own, never one back.
        stepped = [step for step, _ in presses]
        assert stepped == sorted(stepped) and set(stepped) == set(range(5, 14)), presses
        assert len(presses) <= 15
        pods: dict[str, list[int]] = {}
        for step in steps_of(seen, trace):
            if step["object"]["kind"] == "Pod":
                pods.setdefault(step["object"]["name"], []).append(step["step"])
        assert len(pods) == 3 and all(steps == list(range(7, 14)) for steps in pods.values()), pods
        endings = [m for m in seen if m["type"] == "flow.end" and m["trace"] == trace and m["final"]]
        assert [e["outcome"] for e in endings] == ["completed"]
        await asyncio.sleep(0.3)
        assert gate_of(await drain(communicator), trace, waiting) == 0
    finally:
        await plane.stop()
        await communicator.disconnect()

"""In step mode every trace still ends, and the ending arrives on the socket as `flow.end`."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from cluster.controlplane import runtime
from cluster.models import FlowTrace
from tests.support.demo import example
from tests.ws.test_cluster_socket import connect, create, drain

pytestmark = pytest.mark.django_db(transaction=True)


def flow(messages: list[dict], trace: str | None = None) -> list[dict]:
    return [
        m
        for m in messages
        if m["type"] in ("flow.step", "flow.end") and (trace is None or m["trace"] == trace)
    ]


async def test_the_course_order_in_step_mode_never_waits_on_a_trace_that_cannot_advance(demo):
    await runtime.run_until_idle("demo")
    communicator, _ = await connect()
    plane = runtime.ControlPlane("demo")
    plane.start()
    try:
        await communicator.send_json_to({"action": "step_mode", "on": True})
        await asyncio.sleep(0.2)
        await create(demo, example("rc-nginx.yaml"))
        seen = flow(await drain(communicator))
        rc_trace = seen[0]["trace"]
        assert [m["step"] for m in seen] == [1, 2, 3, 4]
        for _ in range(40):  # one Next, one step, until the RC's trace ends
            await communicator.send_json_to({"action": "next", "trace": rc_trace})
            more = []
            for _ in range(10):  # a loaded machine may take longer than one quiet window
                more = flow(await drain(communicator), rc_trace)
                if more:
                    break
            assert more, "a Next that changes nothing"
            seen += more
            if any(m["type"] == "flow.end" and m["final"] for m in more):
                break
        ending = seen[-1]
        assert (ending["type"], ending["outcome"], ending["final"]) == ("flow.end", "completed", True)
        assert sum(1 for m in seen if m["step"] == 13) == 3

        await create(demo, example("pod-nodename.yaml"))
        messages = flow(await drain(communicator))
        for _ in range(10):
            if messages and messages[-1]["type"] == "flow.end":
                break
            messages += flow(await drain(communicator))
        pod_trace = messages[0]["trace"]
        assert [m["step"] for m in messages if m["trace"] == pod_trace] == [*range(1, 12), 0]
        end = messages[-1]
        assert end["type"] == "flow.end" and end["final"] and end["outcome"] == "deleted"
        assert end["by"] == "replicationcontroller/nginx" and end["actor"] == "controller-manager"
        why = "it matched selector app=nginx and the controller already had 3 replicas"
        assert why in end["detail"]["en"]
        assert end["detail"]["zh"] and end["title"]["en"] == "Deleted by replicationcontroller/nginx"
        unfinished = await database_sync_to_async(
            lambda: list(FlowTrace.objects.filter(cluster=demo, finished_at=None))
        )()
        assert unfinished == []
        # A Next now has no trace left to wait on: nothing moves.
        await communicator.send_json_to({"action": "next"})
        assert flow(await drain(communicator)) == []
    finally:
        await plane.stop()
        await communicator.disconnect()

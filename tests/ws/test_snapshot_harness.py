"""For every verb: the snapshot a page loads plus the messages that follow equal a fresh
snapshot, and every message fits its type's schema (tests/ws/messages.py)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.flow import snapshot
from tests.support.demo import KUBECTL, example
from tests.ws.messages import REQUESTS, STEP, check, problems
from tests.ws.test_cluster_socket import apply, comparable, connect, create, drain, steps_of

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"


def _rc() -> dict:
    rc = example("rc-nginx.yaml")
    rc["spec"]["replicas"] = 2
    return rc


def _bare_pod(name: str = "lone") -> dict:
    pod = example("pod-nodename.yaml")
    pod["metadata"]["name"] = name
    del pod["spec"]["nodeName"]
    return pod


def _update(cluster) -> None:
    rc = api.get(cluster, "ReplicationController", "default", "nginx")
    rc["metadata"].setdefault("labels", {})["tier"] = "web"
    api.update(cluster, rc, KUBECTL)


def _patch(cluster) -> None:
    body = {"metadata": {"labels": {"checked": "yes"}}}
    api.patch(cluster, "ReplicationController", "default", "nginx", body, MERGE, KUBECTL)


def _delete(cluster) -> None:
    api.delete(cluster, "ReplicationController", "default", "nginx", KUBECTL)


# verb -> (what exists before the page connects, the verb's write)
VERBS = {
    "create": (None, lambda cluster: api.create(cluster, _rc(), KUBECTL)),
    "update": (_rc, _update),
    "patch": (_rc, _patch),
    "scale": (
        _rc,
        lambda cluster: api.scale(cluster, "ReplicationController", "default", "nginx", 4, KUBECTL),
    ),
    "delete": (_rc, _delete),
    "bind": (None, None),  # below: the pod is bound by hand before the scheduler sees it
}


def _pod_facts(state: dict) -> dict:
    return {key: (state["pod_status"][key], state["pod_requests"][key]) for key in state["pod_status"]}


def _step_counts(state: dict) -> dict:
    return {trace["id"]: trace["step_counts"] for trace in state["traces"]}


async def _check_replay(cluster, first: dict, messages: list[dict]) -> dict:
    """The objects, each pod's STATUS and requests, and each trace's step counts of `first` with
    `messages` applied equal a fresh snapshot's."""
    check(first)
    state = comparable(first)
    facts = _pod_facts(first)
    counts = {trace: dict(tally) for trace, tally in _step_counts(first).items()}
    last = first["revision"]
    for message in messages:
        check(message)
        if message["type"].startswith("object."):
            assert message["revision"] > last and message["prev_revision"] <= last
            last = message["revision"]
            apply(state, message)
            if message["kind"] == "Pod":
                check_pod_facts(message)
                meta = message["object"]["metadata"]
                key = f"{meta.get('namespace') or 'default'}/{meta['name']}"
                if message["type"] == "object.deleted":
                    facts.pop(key, None)
                else:
                    facts[key] = (message["pod_status"], message["pod_requests"])
        elif message["type"] in ("flow.step", "flow.end") and message["id"] > first["step_id"]:
            tally = counts.setdefault(message["trace"], {})
            tally[str(message["step"])] = tally.get(str(message["step"]), 0) + 1
    fresh = await database_sync_to_async(snapshot.build)(cluster)
    check(fresh)
    assert state == comparable(fresh)
    assert facts == _pod_facts(fresh)
    assert {trace: counts.get(trace, {}) for trace in _step_counts(fresh)} == _step_counts(fresh)
    return state


def check_pod_facts(message: dict) -> None:
    """A Pod's object message carries what the page shows of it, computed by the server."""
    assert problems(message, {"pod_status": str, "pod_requests": REQUESTS}) == []


@pytest.mark.parametrize("verb", [v for v in VERBS if v != "bind"])
async def test_snapshot_plus_events_is_a_fresh_snapshot_after(verb, demo):
    before, write = VERBS[verb]
    if before is not None:
        await create(demo, before())
    await runtime.run_until_idle("demo")
    communicator, first = await connect()
    try:
        await database_sync_to_async(write)(demo)
        await runtime.run_until_idle("demo")
        messages = await drain(communicator)
        assert any(m["type"].startswith("object.") for m in messages)
        await _check_replay(demo, first, messages)
    finally:
        await communicator.disconnect()


async def test_snapshot_plus_events_is_a_fresh_snapshot_after_bind(demo):
    await runtime.run_until_idle("demo")
    communicator, first = await connect()
    try:
        await create(demo, _bare_pod())
        await database_sync_to_async(api.bind)(demo, "default", "lone", "node1", KUBECTL)
        await runtime.run_until_idle("demo")
        state = await _check_replay(demo, first, await drain(communicator))
        assert state["pods"][("Pod", "default", "lone")]["spec"]["nodeName"] == "node1"
    finally:
        await communicator.disconnect()


async def test_snapshot_plus_events_is_a_fresh_snapshot_in_step_mode(demo):
    await runtime.run_until_idle("demo")
    communicator, first = await connect()
    plane = runtime.ControlPlane("demo")
    plane.start()
    try:
        await communicator.send_json_to({"action": "step_mode", "on": True})
        messages = await drain(communicator)
        await create(demo, _bare_pod())
        messages += await drain(communicator)
        trace = steps_of(messages)[0]["trace"]
        await communicator.send_json_to({"action": "next", "trace": trace})
        messages += await drain(communicator)
        await _check_replay(demo, first, messages)  # held between steps 9 and 10: still equal
        await communicator.send_json_to({"action": "continue"})
        messages += await drain(communicator)
        assert {"flow.settings", "flow.step", "object.added", "object.modified"} <= {
            m["type"] for m in messages
        }
        await _check_replay(demo, first, messages)
    finally:
        await plane.stop()
        await communicator.disconnect()


async def test_an_unknown_action_is_an_error_message_of_its_schema(demo):
    communicator, _ = await connect()
    try:
        await communicator.send_json_to({"action": "dance"})
        (message,) = await drain(communicator)
        check(message)
        assert message == {"type": "error", "message": "unknown action 'dance'"}
    finally:
        await communicator.disconnect()


def test_the_schemas_catch_a_missing_or_mistyped_field():
    step = {"type": "flow.step", "seq": "1"}
    found = problems(step, STEP)
    assert "$.seq: expected int, got str" in found and "$.trace: missing" in found

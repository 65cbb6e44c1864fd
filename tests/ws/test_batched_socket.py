"""`?batch=1`: each hub read reaches the socket as one `batch` message holding, in order, the very
messages an unbatched socket gets one by one (a browser pays a task per websocket frame)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from cluster.apiserver import service as api
from cluster.broadcast.sinks import Batch, Message
from cluster.controlplane import runtime
from tests.support.demo import KUBECTL, example
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db(transaction=True)


def _flattened(messages: list[dict]) -> list[dict]:
    out = []
    for message in messages:
        out += message["messages"] if message["type"] == "batch" else [message]
    return out


async def test_a_batched_socket_gets_the_same_messages_in_the_same_order(demo):
    await runtime.run_until_idle("demo")
    plain, _ = await connect("/ws/clusters/demo/")
    batched, first = await connect("/ws/clusters/demo/?view=page&batch=1")
    try:
        assert first["type"] == "snapshot" and first["view"] == "page"
        await database_sync_to_async(api.create)(demo, example("rc-nginx.yaml"), KUBECTL)
        await runtime.run_until_idle("demo")
        one_by_one = await drain(plain)
        grouped = await drain(batched)
        assert any(m["type"] == "batch" for m in grouped) and len(grouped) < len(one_by_one)
        assert all(len(m["messages"]) > 1 for m in grouped if m["type"] == "batch")
        assert _flattened(grouped) == one_by_one
        assert sum(m["type"] == "flow.step" for m in one_by_one) == 6 + 3 * 7
    finally:
        await plain.disconnect()
        await batched.disconnect()


def test_a_batch_is_joined_once_and_is_valid_json():
    batch = Batch([Message('{"type":"a"}', revision=1), Message('{"type":"b","x":"é"}', step_id=2)])
    joined = batch.joined()
    assert joined is batch.joined()
    assert json.loads(joined.text) == {"type": "batch", "messages": [{"type": "a"}, {"type": "b", "x": "é"}]}

"""A frame the socket cannot use is answered with an error message; the socket stays open, logs
no traceback, and changes nothing (step mode stays as the teacher left it)."""

from __future__ import annotations

import logging

import pytest
from channels.db import database_sync_to_async

from cluster.models import Cluster
from tests.ws.messages import check
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db(transaction=True)

BAD_FRAMES = [
    ({"bytes_data": b"\x00\xff\x10binary"}, "frames must be JSON text, not binary"),
    ({"text_data": "not json {"}, "the frame is not JSON"),
    ({"text_data": '{"action": ' + "9" * 5000 + "}"}, "the frame is not JSON"),
    ({"text_data": "[1, 2]"}, "unknown action None"),
    ({"text_data": '{"action": "step_mode", "on": "yes"}'}, '"on" must be true or false'),
    ({"text_data": '{"action": "step_mode", "on": 1}'}, '"on" must be true or false'),
    (
        {"text_data": '{"action": "pace", "pace_ms": "fast"}'},
        "pace_ms must be an integer number of milliseconds",
    ),
    (
        {"text_data": '{"action": "pace", "pace_ms": 1e400}'},
        "pace_ms must be an integer number of milliseconds",
    ),
    ({"text_data": '{"action": "next", "trace": {"a": 1}}'}, "trace must be a trace id"),
]


async def test_bad_frames_are_answered_and_the_socket_stays_open(demo, caplog):
    caplog.set_level(logging.WARNING)
    communicator, _ = await connect()
    try:
        for frame, message in BAD_FRAMES:
            await communicator.send_to(**frame)
            (answer,) = await drain(communicator)
            check(answer)
            assert answer == {"type": "error", "message": message}, frame
        # Still open and still obeyed: a well-formed action works after all of them.
        await communicator.send_json_to({"action": "step_mode", "on": True})
        await drain(communicator)
        assert (await database_sync_to_async(Cluster.objects.get)(pk=demo.pk)).step_mode is True
    finally:
        await communicator.disconnect()
    assert not [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]


async def test_a_string_that_is_not_a_boolean_leaves_step_mode_off(demo):
    communicator, _ = await connect()
    try:
        await communicator.send_json_to({"action": "step_mode", "on": "yes"})
        await drain(communicator)
    finally:
        await communicator.disconnect()
    assert (await database_sync_to_async(Cluster.objects.get)(pk=demo.pk)).step_mode is False

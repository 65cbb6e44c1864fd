"""The leading control-plane process's side of attach across processes: what a web process sends
on the relay's channel reaches a container's attach point, and the point's output comes back on
the web process's channel, in order (the in-memory channel layer; the scale-out test runs the
same over Redis with the real kubectl)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import get_channel_layer

from cluster.kubelet import attach, attachrelay


def _point(container_id: str, stdin_once: bool = False) -> attach.Point:
    point = attach.Point(
        "relaytest", container_id, stdin=True, stdin_once=stdin_once, tty=False, wake=lambda: None
    )
    attach.register(point)
    return point


async def _started(identity: str):
    layer = get_channel_layer()
    relay = asyncio.create_task(attachrelay.serve(identity))
    reply = await layer.new_channel()
    return layer, relay, reply


async def _next(layer, reply: str) -> dict:
    return await asyncio.wait_for(layer.receive(reply), 5)


async def _open(layer, leader: str, reply: str, key: str, container_id: str) -> dict:
    """A web process opens an attach session on the leader's relay: its first answer."""
    message = {
        "type": "attach.open",
        "id": key,
        "reply": reply,
        "cluster": "relaytest",
        "container_id": container_id,
    }
    await layer.send(leader, message)
    return await _next(layer, reply)


def test_channel_names_are_valid_and_unique_per_identity():
    long_a, long_b = "host.example.edu_" + "a" * 90, "host.example.edu_" + "a" * 89 + "b"
    names = {attachrelay.channel_for(i) for i in ("h_1_x", "h:1/x", long_a, long_b)}
    assert len(names) == 4
    for name in names:
        assert len(name) < 100
        get_channel_layer().require_valid_channel_name(name)


def test_output_comes_back_in_order_and_stdin_reaches_the_point():
    async def scenario():
        point = _point("c1")
        layer, relay, reply = await _started("cp-one")
        leader = attachrelay.channel_for("cp-one")
        opened = await _open(layer, leader, reply, "s1", "c1")
        assert (opened["type"], opened["ended"], opened["frames"]) == ("attach.opened", False, [])
        writer = threading.Thread(target=lambda: [point.output(1, f"line {i}\n") for i in range(200)])
        writer.start()
        writer.join()
        got = []
        while len(got) < 200:
            message = await _next(layer, reply)
            assert message["type"] == "attach.output"
            got += [data.decode() for _, data in message["frames"]]
        assert got == [f"line {i}\n" for i in range(200)]
        await layer.send(leader, {"type": "attach.stdin", "id": "s1", "data": b"echo hi\n"})
        await asyncio.sleep(0.05)
        assert point.take() == b"echo hi\n"
        point.end()
        assert (await _next(layer, reply))["type"] == "attach.end"
        relay.cancel()

    asyncio.run(scenario())


def test_an_unknown_container_is_refused_and_a_detach_closes_a_stdin_once_point():
    async def scenario():
        point = _point("c2", stdin_once=True)
        layer, relay, reply = await _started("cp-two")
        leader = attachrelay.channel_for("cp-two")
        assert (await _open(layer, leader, reply, "x", "nope"))["reason"] == "gone"
        assert (await _open(layer, leader, reply, "s2", "c2"))["type"] == "attach.opened"
        await layer.send(leader, {"type": "attach.detach", "id": "s2", "stdin": True})
        await asyncio.sleep(0.05)
        assert point.take() == b""  # stdin's end
        point.output(1, "after\n")  # nobody listens any more
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(layer.receive(reply), 0.3)
        relay.cancel()

    asyncio.run(scenario())


def test_a_client_whose_web_process_went_silent_is_detached(monkeypatch):
    monkeypatch.setattr(attachrelay, "ALIVE_SECONDS", 0.05)
    monkeypatch.setattr(attachrelay, "SILENT_SECONDS", 0.2)

    async def scenario():
        point = _point("c3")
        layer, relay, reply = await _started("cp-three")
        leader = attachrelay.channel_for("cp-three")
        assert (await _open(layer, leader, reply, "s3", "c3"))["type"] == "attach.opened"
        for _ in range(4):  # alive messages keep it
            await asyncio.sleep(0.1)
            await layer.send(leader, {"type": "attach.alive", "id": "s3"})
        await asyncio.sleep(0.05)
        assert point._listeners, "an alive client was detached"
        await asyncio.sleep(0.4)
        assert not point._listeners, "a silent client stayed attached"
        relay.cancel()

    asyncio.run(scenario())


def test_a_flood_of_stdin_ends_the_session():
    async def scenario():
        point = _point("c4")
        layer, relay, reply = await _started("cp-four")
        leader = attachrelay.channel_for("cp-four")
        assert (await _open(layer, leader, reply, "s4", "c4"))["type"] == "attach.opened"
        chunk = b"x" * (256 * 1024)
        for _ in range(5):
            await layer.send(leader, {"type": "attach.stdin", "id": "s4", "data": chunk})
        refused = await _next(layer, reply)
        assert (refused["type"], refused["reason"]) == ("attach.refused", "flooded")
        assert not point._listeners
        relay.cancel()

    asyncio.run(scenario())

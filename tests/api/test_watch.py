"""?watch=1 streams the event log as newline-delimited JSON, resuming from a resourceVersion."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from cluster.apiserver import service as api
from cluster.models import Cluster
from tests.apiserver.conftest import pod

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db(transaction=True)]
PODS = "/clusters/demo/api/v1/namespaces/default/pods"
ACTOR = api.Actor("kubectl", "test")
MERGE = "application/merge-patch+json"


@sync_to_async
def setup(names=("a", "b")) -> Cluster:
    cluster = Cluster.objects.create(name="demo")
    for name in names:
        api.create(cluster, pod(name, metadata={"labels": {"app": name}}), ACTOR)
    return cluster


async def lines(response, count: int, timeout: float = 5.0) -> list[dict]:
    """Read `count` events from a streaming watch response."""
    stream = response.streaming_content.__aiter__()
    found: list[dict] = []
    buffer = b""
    while len(found) < count:
        buffer += await asyncio.wait_for(stream.__anext__(), timeout)
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            found.append(json.loads(line))
    return found


async def everything(response) -> list[dict]:
    chunks = [chunk async for chunk in response.streaming_content]
    return [json.loads(line) for line in b"".join(chunks).splitlines()]


async def test_watch_from_zero_sends_current_state_then_changes(async_client):
    cluster = await setup()
    response = await async_client.get(f"{PODS}?watch=1&resourceVersion=0")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    first = await lines(response, 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in first] == [("ADDED", "a"), ("ADDED", "b")]
    await sync_to_async(api.patch)(
        cluster, "Pod", "default", "a", {"metadata": {"labels": {"x": "1"}}}, MERGE, ACTOR
    )
    (changed,) = await lines(response, 1)
    assert changed["type"] == "MODIFIED"
    assert changed["object"]["metadata"]["resourceVersion"] == "3"


async def test_watch_resumes_after_a_resource_version(async_client):
    cluster = await setup()
    await sync_to_async(api.delete)(cluster, "Pod", "default", "a", ACTOR)
    response = await async_client.get(f"{PODS}?watch=true&resourceVersion=1&timeoutSeconds=1")
    events = await everything(response)
    assert [
        (e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"])
        for e in events
    ] == [("ADDED", "b", "2"), ("DELETED", "a", "3")]


async def test_watch_filters_by_label_selector_and_kind(async_client):
    cluster = await setup()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}}
    await sync_to_async(api.create)(cluster, node, ACTOR)
    response = await async_client.get(
        f"{PODS}?watch=1&resourceVersion=0&labelSelector=app%3Db&timeoutSeconds=1"
    )
    events = await everything(response)
    assert [e["object"]["metadata"]["name"] for e in events] == ["b"]


async def test_watch_of_compacted_revision_is_410(async_client, settings):
    settings.KUBESIM_EVENT_LOG_KEEP = 5
    cluster = await setup(("a",))
    for i in range(10):
        await sync_to_async(api.patch)(
            cluster, "Pod", "default", "a", {"metadata": {"labels": {"n": str(i)}}}, MERGE, ACTOR
        )
    response = await async_client.get(f"{PODS}?watch=1&resourceVersion=2")
    assert response.status_code == 410
    body = json.loads(response.content)
    assert (body["reason"], body["code"]) == ("Expired", 410)
    assert body["message"].startswith("too old resource version: 2 (")


async def test_watch_sends_bookmarks_when_asked(async_client, monkeypatch):
    from cluster.api import watch

    monkeypatch.setattr(watch, "BOOKMARK_SECONDS", 0.0)
    await setup()
    response = await async_client.get(
        f"{PODS}?watch=1&resourceVersion=2&allowWatchBookmarks=true&timeoutSeconds=1"
    )
    events = await everything(response)
    assert events and all(e["type"] == "BOOKMARK" for e in events)
    assert events[0]["object"] == {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "2"}}


async def test_watch_with_bad_selector_is_400(async_client):
    await setup()
    response = await async_client.get(f"{PODS}?watch=1&labelSelector=a%20in%20(")
    assert response.status_code == 400
    assert json.loads(response.content)["kind"] == "Status"


async def test_watch_stays_open_without_timeout(async_client):
    await setup()
    response = await async_client.get(f"{PODS}?watch=1&resourceVersion=2")
    stream = response.streaming_content.__aiter__()
    # An empty first chunk sends the status line and headers at once; then nothing until an event.
    assert await asyncio.wait_for(stream.__anext__(), 1.0) == b""
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(stream.__anext__(), 1.0)


async def test_quiet_watch_without_bookmarks_sends_keepalive_newlines(async_client, monkeypatch):
    from cluster.api import watch

    monkeypatch.setattr(watch, "KEEPALIVE_SECONDS", 0.0)
    await setup()
    response = await async_client.get(f"{PODS}?watch=1&resourceVersion=2&timeoutSeconds=1")
    chunks = [chunk async for chunk in response.streaming_content]
    assert chunks[0] == b"" and b"\n" in chunks and set(chunks) <= {b"", b"\n"}


async def test_object_leaving_the_selector_arrives_as_deleted(async_client):
    cluster = await setup()
    response = await async_client.get(f"{PODS}?watch=1&labelSelector=app%3Da")
    (added,) = await lines(response, 1)
    assert (added["type"], added["object"]["metadata"]["name"]) == ("ADDED", "a")
    relabel = sync_to_async(api.patch)
    await relabel(cluster, "Pod", "default", "a", {"metadata": {"labels": {"app": "z"}}}, MERGE, ACTOR)
    await relabel(cluster, "Pod", "default", "b", {"metadata": {"labels": {"app": "a"}}}, MERGE, ACTOR)
    events = await lines(response, 2)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [
        ("DELETED", "a"),
        ("ADDED", "b"),
    ]

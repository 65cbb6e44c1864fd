"""`?events=page`: the object messages after the snapshot carry Pods and Events as the page needs
them (cluster/broadcast/pageview.py), the same messages otherwise; other sockets keep whole objects."""

from __future__ import annotations

import collections
import json

import pytest
from channels.db import database_sync_to_async

from cluster.apiserver import service as api
from cluster.broadcast import pageview
from cluster.broadcast.sinks import Batch, Message
from cluster.controlplane import runtime
from tests.support.demo import KUBECTL, example
from tests.ws.test_batched_socket import _flattened
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_page_events_socket_gets_pod_summaries_and_the_rest_unchanged(demo):
    await runtime.run_until_idle("demo")
    whole, _ = await connect("/ws/clusters/demo/")
    paged_snapshot, _ = await connect("/ws/clusters/demo/?view=page")  # the snapshot only
    page, first = await connect("/ws/clusters/demo/?view=page&batch=1&events=page")
    try:
        assert first["view"] == "page"
        await database_sync_to_async(api.create)(demo, example("rc-nginx.yaml"), KUBECTL)
        await runtime.run_until_idle("demo")
        stored = await drain(whole)
        assert await drain(paged_snapshot) == stored  # `view=page` alone: whole objects, as documented
        drawn = _flattened(await drain(page))
        assert [m["type"] for m in drawn] == [m["type"] for m in stored]
        trimmed = collections.Counter()
        for mine, theirs in zip(drawn, stored, strict=True):
            summary = pageview.SUMMARIES.get(theirs.get("kind"))
            if summary is None:
                assert mine == theirs
                continue
            trimmed[theirs["kind"]] += 1
            assert mine["object"] == summary(theirs["object"])
            assert {k: v for k, v in mine.items() if k != "object"} == {
                k: v for k, v in theirs.items() if k != "object"
            }
        assert trimmed["Pod"] >= 9  # three pods: added, bound, started at least
        assert trimmed["Event"] >= 3  # the RC's SuccessfulCreate, the kubelets' Pulled/Created/Started
        sent = sum(len(json.dumps(m["object"])) for m in drawn if m.get("kind") == "Pod")
        whole_bytes = sum(len(json.dumps(m["object"])) for m in stored if m.get("kind") == "Pod")
        assert sent * 2 < whole_bytes
    finally:
        for communicator in (whole, paged_snapshot, page):
            await communicator.disconnect()


def test_a_batch_joins_each_view_once():
    pod = Message('{"kind":"Pod","object":{"whole":true}}', revision=1)
    pod.page = Message('{"kind":"Pod","object":{}}', revision=1)
    step = Message('{"type":"flow.step"}', step_id=2)
    batch = Batch([pod, step])
    assert batch.joined(page=True) is batch.joined(page=True)
    trimmed = [{"kind": "Pod", "object": {}}, {"type": "flow.step"}]
    assert json.loads(batch.joined(page=True).text)["messages"] == trimmed
    assert json.loads(batch.joined().text)["messages"][0]["object"] == {"whole": True}
    assert batch.frames(page=True) != batch.frames() and batch.frames(page=True) is batch.frames(page=True)
    # A batch with nothing to trim shares one frame between the views.
    plain = Batch([step])
    assert plain.joined(page=True) is plain.joined() and plain.frames(page=True) is plain.frames()


def test_an_events_summary_names_the_object_and_the_reason():
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.1", "namespace": "default", "resourceVersion": "7", "uid": "u"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "fieldPath": "spec"},
        "reason": "Scheduled",
        "message": "Successfully assigned default/web to node1",
        "type": "Normal",
        "count": 1,
        "source": {"component": "default-scheduler"},
    }
    summary = pageview.event_summary(event)
    assert summary["involvedObject"] == {"kind": "Pod", "namespace": "default", "name": "web"}
    assert (summary["reason"], summary["type"], summary["count"]) == ("Scheduled", "Normal", 1)
    assert summary["metadata"]["resourceVersion"] == "7"
    assert "message" not in summary and "source" not in summary


async def test_a_lang_socket_gets_each_steps_detail_in_its_language_only(demo):
    await runtime.run_until_idle("demo")
    both, _ = await connect("/ws/clusters/demo/?batch=1")
    chinese, _ = await connect("/ws/clusters/demo/?batch=1&lang=zh")
    english, _ = await connect("/ws/clusters/demo/?lang=en")
    unknown, _ = await connect("/ws/clusters/demo/?lang=fr")
    try:
        await database_sync_to_async(api.create)(demo, example("rc-nginx.yaml"), KUBECTL)
        await runtime.run_until_idle("demo")
        stored = _flattened(await drain(both))
        steps = [m for m in stored if m["type"] == "flow.step"]
        assert len(steps) == 6 + 3 * 7 and all(m["detail"]["en"] and m["detail"]["zh"] for m in steps)
        for socket, lang in ((chinese, "zh"), (english, "en")):
            mine = _flattened(await drain(socket))
            assert len(mine) == len(stored)
            for got, full in zip(mine, stored, strict=True):
                if full["type"] != "flow.step":
                    assert got == full
                    continue
                assert got["detail"] == {lang: full["detail"][lang]}
                assert {k: v for k, v in got.items() if k != "detail"} == {
                    k: v for k, v in full.items() if k != "detail"
                }
                assert got["title"] == full["title"]  # the step list shows both titles
        assert _flattened(await drain(unknown)) == stored  # a language it has not: both
    finally:
        for communicator in (both, chinese, english, unknown):
            await communicator.disconnect()


def test_a_batch_joins_each_language_once_and_shares_the_rest():
    step = Message('{"type":"flow.step","detail":{"en":"a","zh":"甲"}}', step_id=1)
    step.by_lang = {"zh": Message('{"type":"flow.step","detail":{"zh":"甲"}}', step_id=1)}
    batch = Batch([step, Message('{"type":"x"}', revision=2)])
    assert json.loads(batch.joined(lang="zh").text)["messages"][0]["detail"] == {"zh": "甲"}
    assert batch.joined(lang="zh") is batch.joined(page=True, lang="zh")  # nothing to trim for pages
    assert batch.joined(lang="en") is batch.joined()  # no English-only copy: the whole step
    assert batch.frames(lang="zh") != batch.frames()

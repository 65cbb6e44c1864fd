"""Real time: a lost message is noticed by its revision gap and healed; a dropped socket reconnects."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser

POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: gap-web\nspec:\n  nodeName: node2\n"
    "  containers:\n    - name: web\n      image: nginx:1.15\n"
)


def test_a_lost_message_triggers_a_snapshot_refetch_and_a_dropped_socket_reconnects(page):
    sockets = []
    lost: list[dict] = []

    def relay(ws) -> None:
        server = ws.connect_to_server()
        sockets.append(ws)

        def from_server(message) -> None:
            if isinstance(message, bytes):  # a big snapshot: gzipped, in a binary frame
                ws.send(message)
                return
            data = json.loads(message)
            if data.get("type") == "batch" and not lost:  # one server read: lose one inside it
                kept = []
                for one in data["messages"]:
                    if one["type"].startswith("object.") and not lost:
                        lost.append(one)
                    else:
                        kept.append(one)
                ws.send(json.dumps({**data, "messages": kept}))
                return
            if data.get("type", "").startswith("object.") and not lost:
                lost.append(data)  # lose one, as a full channel layer silently does
                return
            ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/clusters/demo/(\?.*)?$"), relay)
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url) if "/snapshot" in request.url else None)
    open_dashboard(page)
    apply_yaml(page, POD)
    running = '.node-card[data-node="node2"] .pod[data-pod="default/gap-web"][data-state="Running"]'
    page.wait_for_selector(running, timeout=TIMEOUT_MS)
    assert lost and lost[0]["object"]["metadata"]["name"] == "gap-web"
    assert fetched, "the page never re-fetched the snapshot after the gap"

    sockets[0].close()
    page.wait_for_selector('#conn[data-state="reconnecting"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    assert len(sockets) == 2
    page.click("#tab-console")
    page.fill("#console-input", "delete pod gap-web")
    page.press("#console-input", "Enter")
    page.wait_for_selector('.pod[data-pod="default/gap-web"]', state="detached", timeout=TIMEOUT_MS)

"""The trace picker keeps a pick when the page's live snapshot lands after it.

The page's websocket goes through Playwright (route_web_socket) only so that the test can ask the
server, as the page itself does, for a fresh snapshot (`{"action": "snapshot"}`): the real
server's snapshot lands on the page after the pick. A snapshot carries the 10 newest traces; the
trace picked is older than those, and still the store keeps it and the picker shows it.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import TIMEOUT_MS, api_write, open_dashboard, remove_pods
from tests.browser.test_one_story import bare_pod, flow_setting

pytestmark = pytest.mark.browser

PODS = "/clusters/demo/api/v1/namespaces/default/pods"
NEWER = 11  # more than a snapshot's 10 newest traces


def test_a_pick_older_than_the_snapshots_traces_is_kept_when_a_snapshot_lands(page):
    sockets: list = []
    snapshots: list[int] = []

    def proxy(ws) -> None:
        server = ws.connect_to_server()
        sockets.append(server)

        def to_page(message) -> None:
            # A big snapshot comes gzipped in a binary frame; the rest is JSON text.
            if isinstance(message, bytes) or json.loads(message).get("type") == "snapshot":
                snapshots.append(1)
            ws.send(message)

        server.on_message(to_page)

    page.route_web_socket("**/ws/clusters/**", proxy)
    names = [f"pick-{i}" for i in range(NEWER + 1)]
    try:
        flow_setting(page, "pace", {"pace_ms": 0})
        open_dashboard(page)
        for name in names:
            pod = bare_pod(name)
            pod["spec"]["nodeName"] = "node1"
            api_write(page, "POST", PODS, pod)
        page.wait_for_function(
            "(n) => document.querySelectorAll('#trace-select option').length > n",
            arg=NEWER,
            timeout=TIMEOUT_MS,
        )
        option = page.locator("#trace-select option", has_text=f"Pod default/{names[0]} ")
        picked = option.get_attribute("value")
        page.select_option("#trace-select", picked)
        page.wait_for_selector(f'.caption[data-trace="{picked}"]', timeout=TIMEOUT_MS)
        landed = len(snapshots)
        sockets[-1].send(json.dumps({"action": "snapshot"}))
        deadline = TIMEOUT_MS / 1000
        waited = 0.0
        while len(snapshots) == landed:
            assert waited < deadline, "no snapshot came"
            page.wait_for_timeout(100)
            waited += 0.1
        page.wait_for_timeout(600)  # drawn
        # The server's snapshot does not carry the picked trace (10 newer ones came after it) …
        response = page.request.get(f"{page.base_url}/clusters/demo/snapshot")
        assert picked not in {t["id"] for t in response.json()["traces"]}
        # … and the page keeps it picked, and shows it.
        assert page.locator("#trace-select").input_value() == picked
        assert page.locator(f'.caption[data-trace="{picked}"]').count() == 1
        # Following again lets it go like any other old trace.
        page.select_option("#trace-select", "")
        page.wait_for_function(
            "(id) => !document.querySelector(`.caption[data-trace='${id}']`)", arg=picked, timeout=TIMEOUT_MS
        )
    finally:
        remove_pods(page, names)
        flow_setting(page, "pace", {"pace_ms": 60})
    assert page.problems.errors == []

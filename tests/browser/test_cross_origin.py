"""A page at another origin (another port), opened by the signed-in teacher, can change nothing:
its cookieless or cookie-carrying fetches and its websocket are refused; the dashboard's own page,
with its CSRF token, can."""

from __future__ import annotations

import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser.conftest import free_port
from tests.support.auth import teacher_headers

pytestmark = pytest.mark.browser
EVIL_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "evil-json"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
}
EVIL_YAML = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: evil-yaml\n"
    "spec:\n  containers:\n  - name: c\n    image: nginx\n"
)
ATTACK = """async ([base, pod, yaml]) => {
  const tries = [];
  const send = async (path, options) => {
    try { await fetch(base + path, { method: "POST", mode: "no-cors", ...options }); tries.push(path); }
    catch (e) { tries.push(path + " " + e); }
  };
  for (const credentials of ["omit", "include"]) {
    await send("/clusters/demo/apply", { credentials, body: yaml });
    await send("/clusters/demo/api/v1/namespaces/default/pods", { credentials, body: JSON.stringify(pod) });
    await send("/clusters/demo/flow/step_mode", { credentials, body: "on=true",
      headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    await send("/clusters/demo/policy", { credentials, body: JSON.stringify({ class_may_write: true }) });
  }
  const socket = await new Promise((resolve) => {
    const ws = new WebSocket(base.replace("http", "ws") + "/ws/clusters/demo/");
    ws.onopen = () => { ws.send(JSON.stringify({ action: "step_mode", on: true })); resolve("open"); };
    ws.onerror = () => resolve("refused");
    setTimeout(() => resolve("timeout"), 5000);
  });
  return { tries, socket };
}"""


class EvilPage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>Totally unrelated page</title><h1>Nothing to see</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def api_get(base: str, path: str) -> dict:
    request = urllib.request.Request(f"{base}{path}", headers=teacher_headers())
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def pod_names(base: str) -> set[str]:
    items = api_get(base, "/clusters/demo/api/v1/namespaces/default/pods")["items"]
    return {item["metadata"]["name"] for item in items}


def test_a_page_at_another_port_changes_nothing_and_the_dashboard_itself_still_can(page, live_server_url):
    port = free_port()
    evil = ThreadingHTTPServer(("127.0.0.1", port), EvilPage)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{port}/")  # the teacher (signed in) opens another page
        outcome = page.evaluate(ATTACK, [live_server_url, EVIL_POD, EVIL_YAML])
        page.wait_for_timeout(500)
    finally:
        evil.shutdown()
        evil.server_close()
    assert len(outcome["tries"]) == 8 and outcome["socket"] == "refused"
    assert not {"evil-json", "evil-yaml"} & pod_names(live_server_url)
    snapshot = api_get(live_server_url, "/clusters/demo/snapshot")
    assert snapshot["step_mode"] is False
    assert api_get(live_server_url, "/clusters/demo/policy")["class_may_write"] is False

    # The same write from the dashboard's own page, with its CSRF token, goes through.
    page.goto(f"{live_server_url}/clusters/demo/")
    status = page.evaluate(
        """async (pod) => {
          const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
          const response = await fetch("/clusters/demo/api/v1/namespaces/default/pods", {
            method: "POST", headers: { "Content-Type": "application/json", "X-CSRFToken": token },
            body: JSON.stringify(pod) });
          return response.status;
        }""",
        {**EVIL_POD, "metadata": {"name": "own-page"}},
    )
    assert status == 201 and "own-page" in pod_names(live_server_url)
    urllib.request.urlopen(
        urllib.request.Request(
            f"{live_server_url}/clusters/demo/api/v1/namespaces/default/pods/own-page",
            method="DELETE",
            headers=teacher_headers(),
        ),
        timeout=10,
    )

"""Steps the browser tests share: open the dashboard, apply YAML, type into the console."""

from __future__ import annotations

import json

from tests.support.auth import teacher_headers

TIMEOUT_MS = 20_000


def open_dashboard(page, cluster: str = "demo") -> None:
    page.goto(f"{page.base_url}/clusters/{cluster}/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('.node-card[data-node="node1"]', timeout=TIMEOUT_MS)


def record_flow_steps(page) -> list[dict]:
    """Every flow.step message the page's websocket receives, in arrival order."""
    steps: list[dict] = []

    def on_socket(ws) -> None:
        def on_frame(payload) -> None:
            try:
                message = json.loads(payload)
            except (TypeError, ValueError):
                return
            # The page asks for batches (?batch=1): one frame holds a server read's messages.
            for one in message.get("messages", []) if message.get("type") == "batch" else [message]:
                if one.get("type") == "flow.step":
                    steps.append(one)
                elif one.get("type") == "snapshot":
                    for trace in one.get("traces", []):
                        steps.extend(trace.get("steps", []))

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return steps


def apply_yaml(page, text: str) -> None:
    page.click("#tab-yaml")
    page.fill("#yaml-text", text)
    page.click("#yaml-apply")


def console(page, command: str, expect: str | None = None) -> str:
    """Run a console command; returns the output printed after it."""
    page.click("#tab-console")
    before = page.locator("#console-out > span").count()
    page.fill("#console-input", command)
    page.press("#console-input", "Enter")
    # Spans after the one at `before` (which echoes the command); a "still waiting" hint is removed
    # when the answer comes, so it never counts as the answer.
    answer = (
        "[...document.querySelectorAll('#console-out > span')].slice(n + 1)"
        ".filter((s) => !s.classList.contains('c-waiting'))"
    )
    if expect is not None:
        page.wait_for_function(
            f"([n, text]) => {answer}.some((s) => s.textContent.includes(text))",
            arg=[before, expect],
            timeout=TIMEOUT_MS,
        )
    else:
        page.wait_for_function(f"(n) => {answer}.length > 0", arg=before, timeout=TIMEOUT_MS)
    return page.evaluate(f"(n) => {answer}.map((s) => s.textContent).join('')", before)


def pod_chip(page, node: str, pod: str):
    return page.locator(f'.node-card[data-node="{node}"] .pod[data-pod="default/{pod}"]')


def api_write(page, method: str, path: str, body: dict | None = None) -> dict:
    """Every write these tests make through the HTTP API goes through here, as the teacher (the
    one place that gives them the rights a write needs)."""
    response = page.request.fetch(
        f"{page.base_url}{path}",
        method=method,
        data=json.dumps(body) if body is not None else None,
        headers={"Content-Type": "application/json", "X-KubeSim-Client": "kubectl", **teacher_headers()},
    )
    assert response.ok, f"{method} {path}: {response.status} {response.text()}"
    return response.json()


def remove_pods(page, names, namespace: str = "default") -> None:
    """A test's clean-up: each pod deleted at once, as the teacher, whether or not it is still there."""
    for name in names:
        page.request.delete(
            f"{page.base_url}/clusters/demo/api/v1/namespaces/{namespace}/pods/{name}",
            data={"gracePeriodSeconds": 0},
            headers=teacher_headers(),
        )

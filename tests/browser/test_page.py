"""The page itself: loads clean, switches language, never executes hostile strings."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser


def test_root_redirects_to_the_demo_cluster_and_loads_without_console_errors(page):
    page.goto(f"{page.base_url}/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    assert page.url.endswith("/clusters/demo/")
    for node in ("master", "node1", "node2"):
        assert page.locator(f'.node-card[data-node="{node}"]').is_visible()
    assert (
        page.locator('.node-card[data-node="master"] .chip-taint')
        .first.text_content()
        .endswith("node-role.kubernetes.io/control-plane:NoSchedule")
    )
    assert page.locator(".step-list .step").count() == 13
    page.wait_for_timeout(500)
    assert page.problems.errors == []


def test_static_assets_are_served_locally_without_a_cdn(page):
    requests: list[str] = []
    responses: dict[str, object] = {}
    page.on("request", lambda request: requests.append(request.url))
    page.on("response", lambda response: responses.setdefault(response.url, response))
    open_dashboard(page)
    outside = [
        url for url in requests if not url.startswith(page.base_url) and not url.startswith("ws://127.0.0.1")
    ]
    assert outside == []
    # Collected files (kubesim/static.py): every module under its content-hashed name, imports
    # between modules included, gzipped and cached for good; the page ran (it drew the nodes).
    modules = [url for url in requests if "/static/kubesim/" in url and url.endswith(".js")]
    assert modules and all(re.search(r"/static/kubesim/[a-z_]+\.[0-9a-f]{12}\.js$", url) for url in modules)
    for name in ("app", "store", "flow_view", "cluster_view", "dom"):
        assert any(re.search(rf"/{name}\.[0-9a-f]{{12}}\.js$", url) for url in modules), name
    app = next(responses[url] for url in modules if re.search(r"/app\.[0-9a-f]{12}\.js$", url))
    headers = app.all_headers()
    assert "immutable" in headers["cache-control"] and headers.get("content-encoding") == "gzip"


def test_language_switch_translates_the_ui_and_the_flow_captions(page):
    open_dashboard(page)
    assert page.locator("#tab-scheduler").text_content() == "Scheduler"
    page.click('.lang-switch button[value="zh-hans"]')
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.locator("#tab-scheduler").text_content() == "调度器"
    assert page.locator("#flow-h").text_content() == "List-Watch 工作流程"
    first_step = page.locator('.step[data-step="2"] .step-title').text_content()
    assert first_step == "kubectl 提交请求"
    assert page.locator('.step[data-step="2"] .step-alt').text_content() == "kubectl sends the request"
    page.click('.lang-switch button[value="en"]')
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    assert page.locator("#tab-scheduler").text_content() == "Scheduler"
    assert page.problems.errors == []


def test_hostile_strings_in_objects_and_errors_never_execute(page):
    open_dashboard(page)
    page.evaluate("window.__pwned = 0")
    hostile = "<img src=x onerror=window.__pwned=1>"
    # The API server accepts any image string (as Kubernetes does): the page must show it as text.
    apply_yaml(
        page,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: xss-probe\n"
        f"  annotations:\n    note: '{hostile}'\nspec:\n  nodeName: node2\n  containers:\n    - name: c\n"
        f"      image: '{hostile}'\n",
    )
    chip = page.locator('.node-card[data-node="node2"] .pod[data-pod="default/xss-probe"]')
    chip.wait_for(timeout=TIMEOUT_MS)
    chip.click()
    page.click(".menu-item >> nth=1")  # Describe / Events / Logs
    page.wait_for_function(
        "(text) => document.getElementById('inspect-out').textContent.includes(text)", arg=hostile
    )
    apply_yaml(page, f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: '{hostile}'\n")
    page.wait_for_selector("#yaml-result .result-fail", timeout=TIMEOUT_MS)
    assert hostile in page.locator("#yaml-result").text_content()
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") == 0
    assert page.locator("img").count() == 0

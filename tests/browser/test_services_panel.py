"""The dashboard's Services strip (each Service with its endpoints) and the flow's endpoints lane
beside the 13 steps, in English and Chinese, at projector sizes."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, api_write
from tests.browser.test_projector import ALWAYS, SCREENSHOTS, assert_reachable, open_at

pytestmark = pytest.mark.browser

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "svc-web", "labels": {"app": "svc-web"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "svc-web"}},
        "template": {
            "metadata": {"labels": {"app": "svc-web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15"}]},
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "svc-web"},
    "spec": {"selector": {"app": "svc-web"}, "ports": [{"port": 80}]},
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)], ids=["1280x720", "1600x1000"])
def test_services_strip_and_endpoints_lane(browser, live_server_url, size, language):
    context, page = open_at(browser, live_server_url, size, language, presenter=False)
    try:
        # The built-in `kubernetes` Service is there from the start, with the API server's address.
        page.wait_for_selector('#services .service[data-service="default/kubernetes"]', timeout=TIMEOUT_MS)
        kubernetes = page.locator('#services .service[data-service="default/kubernetes"]')
        assert "10.96.0.1:443" in kubernetes.inner_text()
        assert "192.168.56.10:6443" in kubernetes.get_attribute("title")

        first = language == "en" and size == (1280, 720)
        if first:
            api_write(page, "POST", "/clusters/demo/api/v1/namespaces/default/services", SERVICE)
            api_write(page, "POST", "/clusters/demo/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT)
        chip = page.locator('#services .service[data-service="default/svc-web"]')
        chip.wait_for(timeout=TIMEOUT_MS)
        page.wait_for_function(
            "() => document.querySelector('#services .service[data-service=\"default/svc-web\"] .svc-eps')"
            ".textContent === '→ 2/2'",
            timeout=TIMEOUT_MS,
        )
        assert chip.get_attribute("title").count("10.244.") == 2
        if first:
            # Followed live, the deployment's trace shows the endpoints controller beside its steps.
            page.wait_for_selector("#endpoints-lane:not([hidden]) .ep-change.is-ready", timeout=TIMEOUT_MS)
            lane = page.locator("#endpoints-lane").inner_text()
            assert "Endpoints default/svc-web" in lane and "the endpoints controller" in lane
        page.wait_for_timeout(400)
        page.screenshot(path=str(SCREENSHOTS / f"services-{language}-{size[0]}x{size[1]}.png"))
        scroll = page.evaluate(
            "[document.scrollingElement.scrollHeight, document.scrollingElement.scrollWidth]"
        )
        assert scroll[0] <= size[1] and scroll[1] <= size[0]
        assert_reachable(page, [*ALWAYS, *(f'.step[data-step="{n}"]' for n in range(1, 14))])
        chip.scroll_into_view_if_needed()  # the strip is under the workloads, in the cluster panel
        page.screenshot(path=str(SCREENSHOTS / f"services-{language}-{size[0]}x{size[1]}-strip.png"))
        chip.click()  # describes the Service in the inspector
        page.wait_for_function(
            "() => document.getElementById('inspect-out').textContent.includes('Endpoints:')",
            timeout=TIMEOUT_MS,
        )
        assert page.errors == []
    finally:
        context.close()

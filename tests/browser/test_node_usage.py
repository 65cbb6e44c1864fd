"""The node cards' bars: what the pods request and, beside it, what the node uses now (the metrics
API, docs/metrics.md), in English and Simplified Chinese at projector sizes; a load generator's
`wget` loop shows as the CPU in use of the node its nginx pods run on."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, manage_live, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS
from tests.support.clock import jump_clock

pytestmark = pytest.mark.browser
CLUSTER = "usage"
SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
IN_USE = {"en": "in use", "zh-hans": "使用中"}
SETUP = f"""
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.controlplane.demo import create_demo
cluster = create_demo({CLUSTER!r}, pace_ms=0)
actor = Actor(client="api", detail="browser test")
api.apply_manifests(cluster, '''
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - {{name: nginx, image: "nginx:1.25", resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: web}}
spec: {{selector: {{app: web}}, ports: [{{port: 80}}]}}
---
apiVersion: v1
kind: Pod
metadata: {{name: load}}
spec:
  containers:
  - {{name: load, image: "busybox:1.36", command: [sh, -c, "while true; do wget -q -O- http://web; done"]}}
''', actor)
"""


@pytest.fixture(scope="module")
def loaded(live_server_url):
    manage_live(live_server_url, "shell", "-c", SETUP)
    return live_server_url


def jump(base_url: str, seconds: int) -> None:
    jump_clock(base_url, CLUSTER, {"seconds": seconds})


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_node_bars_show_usage_beside_requests(browser, loaded, size, language):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": loaded}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in_as_teacher(page, loaded)
    page.goto(f"{loaded}/clusters/{CLUSTER}/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelectorAll('.node-card .pod.phase-Running').length >= 3", timeout=TIMEOUT_MS
    )
    jump(loaded, 40)  # past the first scrape window of every container
    page.reload()
    page.wait_for_selector(".node-card .bar-in-use:not([hidden])", timeout=TIMEOUT_MS)
    texts = page.locator(".node-card .bar-in-use:not([hidden])").all_text_contents()
    assert texts and all(IN_USE[language] in text for text in texts), texts
    # The nodes that run nginx behind the wget loop use far more CPU than the idle control plane.
    widths = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.node-card')].map((card) =>
             [card.dataset.node, parseFloat(card.querySelector('.bar-use').style.width || '0')]))"""
    )
    assert max(widths.values()) > widths.get("master", 0), widths
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"node-usage-{language}-{size[0]}x{size[1]}.png"))
    assert errors == []
    context.close()

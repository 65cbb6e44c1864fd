"""Presenter mode for the back row, and the scheduler's explanation in its pane.

At 1280×720, 1600×1000 and 1920×1080, in English and Chinese: in Presenter mode the diagram's
component names render at 14 px or more, the caption's title at 20 px, the step list at 16 px; the
node cards (their own labels and their pods) are in view together with the Pending lane; nothing
scrolls sideways. In both modes the scheduler's explanation by node shows node1's NodeAffinity
reason inside the viewport and inside its pane, the full matrix one click away. Normal mode keeps
its density. Measured by geometry and computed style; screenshots in artifacts/screenshots/.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import SCREENSHOTS, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write, console
from tests.support.auth import teacher_headers

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
LANGUAGES = ["en", "zh-hans"]
LABEL = ("lesson", "presenter")  # node1's label in this lesson, a key no other test uses
PENDING = "presenter-selector"
RUNNING = "presenter-web"
AFFINITY = "node(s) didn't match Pod's node affinity/selector"

# The rendered sizes: an SVG text's font size times the scale its viewBox is drawn at.
SIZES_JS = """() => {
  const px = (el) => parseFloat(getComputedStyle(el).fontSize);
  const titles = [...document.querySelectorAll('#flow-diagram .comp-title')];
  return {
    root: px(document.documentElement),
    components: titles.map((el) => ({text: el.textContent, px: px(el) * el.getScreenCTM().a})),
    caption: px(document.querySelector('.caption-title')),
    steps: [...document.querySelectorAll('.step-title')].map(px),
  };
}"""

# Whether an element is drawn whole inside the viewport and inside the visible box of every
# scrolling ancestor (a panel, a pane, the Pending lane's list).
VISIBLE_JS = """(selectors) => selectors.map((selector) => {
  const el = document.querySelector(selector);
  if (!el) return {selector, missing: true};
  const r = el.getBoundingClientRect();
  const boxes = [[0, 0, innerWidth, innerHeight]];
  for (let up = el.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (/(auto|scroll|hidden)/.test(style.overflowX + style.overflowY)) {
      const b = up.getBoundingClientRect();
      boxes.push([b.left, b.top, b.left + up.clientWidth, b.top + up.clientHeight]);
    }
  }
  const inside = r.width > 0 && r.height > 0 && boxes.every(([left, top, right, bottom]) =>
    r.left >= left - 0.5 && r.top >= top - 0.5 && r.right <= right + 0.5 && r.bottom <= bottom + 0.5);
  return {selector, inside, rect: [r.left, r.top, r.right, r.bottom].map(Math.round)};
})"""

# Elements whose content is wider than their box (so a lesson would scroll sideways).
SIDEWAYS_JS = """() => [...document.querySelectorAll(['.panel', '.tab-pane:not([hidden])', '.pending-lane',
    '.lane-pods', '.node-grid', '.node-card', '.flow-caption', '.step-list', '.sched-compact'].join(','))]
  .filter((el) => el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.id || el.className}: ${el.scrollWidth} > ${el.clientWidth}`)"""


def label_node1(page, value: str | None) -> None:
    response = page.request.patch(
        f"{page.base_url}/clusters/demo/api/v1/nodes/node1",
        data=json.dumps({"metadata": {"labels": {LABEL[0]: value}}}),
        headers={"Content-Type": "application/merge-patch+json", **teacher_headers()},
    )
    assert response.ok, response.text()


@pytest.fixture(scope="module")
def lesson(browser, live_server_url):
    """node1 labelled for the lesson with a pod running there, and a pod that waits (its
    nodeSelector asks for a label no node has): the Pending lane, a caption, node cards."""
    context = browser.new_context()
    page = context.new_page()
    page.base_url = live_server_url
    # A lesson starts from the course's starting state, as the teacher's "Reset demo" leaves it: the
    # pods earlier tests left on node1 would push the lesson's pod below the card's visible box.
    reset = page.request.post(f"{live_server_url}/clusters/demo/reset", headers=teacher_headers())
    assert reset.ok, reset.text()
    label_node1(page, LABEL[1])
    pods = "/clusters/demo/api/v1/namespaces/default/pods"
    container = {"containers": [{"name": "web", "image": "nginx:1.15"}]}
    api_write(
        page,
        "POST",
        pods,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": RUNNING},
            "spec": {"nodeSelector": {LABEL[0]: LABEL[1]}, **container},
        },
    )
    api_write(
        page,
        "POST",
        pods,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": PENDING},
            "spec": {"nodeSelector": {LABEL[0]: "elsewhere"}, **container},
        },
    )
    yield
    for name in (PENDING, RUNNING):
        api_write(page, "DELETE", f"{pods}/{name}", {"gracePeriodSeconds": 0})
    label_node1(page, None)
    context.close()


def open_page(browser, base_url: str, size, language: str, presenter: bool):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page = context.new_page()
    sign_in_as_teacher(page, base_url)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(f"localStorage.setItem('kubesim.presenter', '{'1' if presenter else ''}')")
    page.goto(f"{base_url}/clusters/demo/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_selector(
        f'.node-card[data-node="node1"] .pod[data-pod="default/{RUNNING}"]', timeout=TIMEOUT_MS
    )
    page.wait_for_selector(f'#pending-lane .pod[data-pod="default/{PENDING}"]', timeout=TIMEOUT_MS)
    page.errors = errors
    return context, page


def explain(page, pod: str) -> None:
    """The scheduler panel on `pod`, as the pod's menu opens it."""
    page.click(f'#pending-lane .pod[data-pod="default/{pod}"]')
    page.click(".menu-item >> nth=0")
    page.wait_for_selector(
        '.compact-node[data-node="node1"] [data-plugin="NodeAffinity"]', timeout=TIMEOUT_MS
    )


def assert_visible(page, selectors: list[str]) -> None:
    hidden = [
        found for found in page.evaluate(VISIBLE_JS, selectors) if found.get("missing") or not found["inside"]
    ]
    assert hidden == []


def node1_affinity_reason_is_readable(page) -> None:
    reason = '.compact-node[data-node="node1"] [data-plugin="NodeAffinity"]'
    assert page.locator(f"{reason} .reason").text_content() == AFFINITY
    assert "spec.nodeSelector" in page.locator(f"{reason} .why").text_content()
    page.locator(reason).scroll_into_view_if_needed()  # the pane scrolls up and down, never sideways
    assert_visible(page, [reason, f"{reason} .reason", f"{reason} .why"])
    pane = page.locator("#pane-scheduler")
    assert pane.evaluate("(p) => p.scrollWidth") <= pane.evaluate("(p) => p.clientWidth")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_presenter_mode_reads_from_the_back_row(browser, live_server_url, lesson, size, language):
    context, page = open_page(browser, live_server_url, size, language, presenter=True)
    try:
        page.wait_for_selector(".caption-title", timeout=TIMEOUT_MS)
        page.wait_for_timeout(400)  # animations settle
        name = f"presenter-{language}-{size[0]}x{size[1]}"
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        sizes = page.evaluate(SIZES_JS)
        assert len(sizes["components"]) >= 8  # kubectl, the control plane's four, three kubelets
        assert [c for c in sizes["components"] if c["px"] < 14] == []
        assert sizes["caption"] >= 20
        assert len(sizes["steps"]) == 13 and min(sizes["steps"]) >= 16
        # The Pending lane and every node card's name, own label and pods, in view together.
        assert_visible(
            page,
            [
                f'#pending-lane .pod[data-pod="default/{PENDING}"]',
                *(f'.node-card[data-node="{node}"] .node-name' for node in ("master", "node1", "node2")),
                f'.node-card[data-node="node1"] .chip-label[title="{LABEL[0]}={LABEL[1]}"]',
                f'.node-card[data-node="node1"] .pod[data-pod="default/{RUNNING}"]',
                *(f'.step[data-step="{n}"]' for n in range(1, 14)),
            ],
        )
        assert page.evaluate(SIDEWAYS_JS) == []
        scroll = page.evaluate(
            "[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]"
        )
        assert scroll[0] <= size[0] and scroll[1] <= size[1]  # the page itself never scrolls

        explain(page, PENDING)
        node1_affinity_reason_is_readable(page)
        assert page.evaluate(SIDEWAYS_JS) == []
        page.screenshot(path=str(SCREENSHOTS / f"{name}-scheduler.png"))
        assert page.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_normal_mode_keeps_its_density_and_the_explanation_fits_its_pane(
    browser, live_server_url, lesson, size, language
):
    context, page = open_page(browser, live_server_url, size, language, presenter=False)
    try:
        sizes = page.evaluate(SIZES_JS)
        assert sizes["root"] == 15 and set(sizes["steps"]) == {12.6}  # 15 px, steps at .84rem
        explain(page, PENDING)
        node1_affinity_reason_is_readable(page)
        assert page.evaluate(SIDEWAYS_JS) == []
        page.screenshot(path=str(SCREENSHOTS / f"scheduler-by-node-{language}-{size[0]}x{size[1]}.png"))
        # The full matrix is one click away, and back.
        page.click('.view-switch button[data-view="matrix"]')
        page.wait_for_selector('.filter-matrix tr[data-node="node1"] td.cell-fail', timeout=TIMEOUT_MS)
        assert AFFINITY in page.locator('.filter-matrix tr[data-node="node1"]').text_content()
        page.click('.view-switch button[data-view="nodes"]')
        page.wait_for_selector(".sched-compact", timeout=TIMEOUT_MS)
        assert page.errors == []
    finally:
        context.close()


def test_the_explanation_names_only_what_failed_and_the_scores_that_decided(browser, live_server_url, lesson):
    """The scheduled pod: node1 is the only feasible node (the others lack its label); every
    failure listed is a failed filter with upstream's reason, none a passing one."""
    context, page = open_page(browser, live_server_url, (1600, 1000), "en", presenter=False)
    try:
        page.click(f'.node-card[data-node="node1"] .pod[data-pod="default/{RUNNING}"]')
        page.click(".menu-item >> nth=0")
        page.wait_for_selector(".sched-compact", timeout=TIMEOUT_MS)
        winner = page.locator(".compact-node.is-winner")
        assert winner.get_attribute("data-node") == "node1"
        assert winner.locator(".compact-fail").count() == 0
        for node in ("master", "node2"):
            plugins = page.locator(f'.compact-node[data-node="{node}"] .compact-fail').evaluate_all(
                "(items) => items.map((item) => item.dataset.plugin)"
            )
            assert "NodeAffinity" in plugins and "NodeResourcesFit" not in plugins
        assert "nothing was scored" in page.locator(".compact-note").text_content()
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_console_wraps_at_its_width_in_presenter_mode(browser, live_server_url, lesson, size, language):
    """`get pods -o wide` in Presenter mode: every column is there, wrapped as a terminal wraps
    it, and the output never scrolls sideways (its scrollWidth is its clientWidth)."""
    context, page = open_page(browser, live_server_url, size, language, presenter=True)
    try:
        output = console(page, "get pods -o wide", expect=RUNNING)
        assert "NOMINATED NODE" in output and "READINESS GATES" in output and "node1" in output
        console(
            page, "create deployment presenter-web --image=nginx:1.27 --dry-run=client", expect="(dry run)"
        )
        console(page, "run --image=nginx", expect="NAME is required")
        out = page.locator("#console-out")
        assert out.evaluate("(el) => el.scrollWidth <= el.clientWidth")
        assert out.evaluate("(el) => getComputedStyle(el).whiteSpace") == "pre-wrap"
        assert_visible(page, ["#console-input"])
        page.screenshot(path=str(SCREENSHOTS / f"presenter-console-{language}-{size[0]}x{size[1]}.png"))
        assert page.errors == []
    finally:
        context.close()

"""The dashboard on a projector: at 1280×720, 1600×1000 and 1920×1080, in English and Chinese,
normal and presenter mode, the page does not scroll, the header is one line, and every named
control is inside the viewport and not covered by anything (checked with elementFromPoint)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, manage_live, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
LANGUAGES = ["en", "zh-hans"]
ALWAYS = [
    "#tab-scheduler",
    "#tab-yaml",
    "#tab-console",
    "#tab-inspect",
    "#trace-select",
    "#replay",
    "#pace",
    "label.switch",
    "#next-step",
    "#continue",
    "#add-node",
    "#presenter-toggle",
    "#kubectl-copy",
    '.lang-switch button[value="zh-hans"]',
    '.lang-switch button[value="en"]',
    "#revision",
]

# Where each element is, and whether its centre (and corners, inset) hit the element itself.
GEOMETRY = """(selectors) => selectors.map((selector) => {
  const el = document.querySelector(selector);
  if (!el) return {selector, missing: true};
  const r = el.getBoundingClientRect();
  const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
    && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const points = [[r.left + r.width / 2, r.top + r.height / 2],
    [r.left + 3, r.top + 3], [r.right - 3, r.bottom - 3]];
  const covered = points.map(([x, y]) => document.elementFromPoint(x, y))
    .filter((hit) => !(hit && (hit === el || el.contains(hit))))
    .map((hit) => hit ? (hit.id || hit.className || hit.tagName) : "nothing");
  return {selector, inside, covered, rect: [r.left, r.top, r.right, r.bottom].map(Math.round)};
})"""

HEADER = """() => {
  const bar = document.querySelector(".topbar").getBoundingClientRect();
  const children = [...document.querySelectorAll(".topbar > *")].filter((el) => el.offsetParent !== null);
  const outside = children.filter((el) => {
    const r = el.getBoundingClientRect();
    return r.top < bar.top - 0.5 || r.bottom > bar.bottom + 0.5 || r.right > innerWidth;
  }).map((el) => el.className || el.tagName);
  const texts = ".lang-switch button, .conn-rev, .kubectl-copy code, #presenter-toggle";
  const wrapped = [...document.querySelectorAll(texts)]
    .filter((el) => el.getClientRects().length !== 1 || el.scrollWidth > el.clientWidth + 1)
    .map((el) => el.textContent.trim());
  const copy = document.getElementById("kubectl-copy");
  return {height: bar.height, outside, wrapped, urlCut: copy.scrollWidth > copy.clientWidth + 1};
}"""


def open_at(browser, base_url: str, size: tuple[int, int], language: str, presenter: bool):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page = context.new_page()
    sign_in_as_teacher(page, base_url)  # the teacher's page: every control is there
    page.base_url = base_url
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(f"localStorage.setItem('kubesim.presenter', '{'1' if presenter else ''}')")
    page.goto(f"{base_url}/clusters/demo/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('.node-card[data-node="node1"]', timeout=TIMEOUT_MS)
    page.errors = errors
    return context, page


def assert_reachable(page, selectors: list[str]) -> None:
    problems = [
        found
        for found in page.evaluate(GEOMETRY, selectors)
        if found.get("missing") or not found["inside"] or found["covered"]
    ]
    assert problems == []


@pytest.fixture(scope="module")
def pending_pod(browser, live_server_url):
    """A pod no node fits: the Pending lane, a FailedScheduling message and a score table."""
    context = browser.new_context()
    page = context.new_page()
    page.base_url = live_server_url
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "projector-pending"},
        "spec": {
            "nodeSelector": {"disktype": "nvme-that-no-node-has"},
            "containers": [{"name": "web", "image": "nginx:1.15"}],
        },
    }
    api_write(page, "POST", "/clusters/demo/api/v1/namespaces/default/pods", pod)
    context.close()
    return "projector-pending"


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_tool_and_step_fits_the_projector(
    browser, live_server_url, pending_pod, size, language, presenter
):
    context, page = open_at(browser, live_server_url, size, language, presenter)
    try:
        page.wait_for_selector(f'#pending-lane .pod[data-pod="default/{pending_pod}"]', timeout=TIMEOUT_MS)
        # The scheduler's explanation of the pending pod: the widest content the tools show.
        page.click(f'#pending-lane .pod[data-pod="default/{pending_pod}"]')
        page.click(".menu-item >> nth=0")
        page.wait_for_selector(".sched-compact", timeout=TIMEOUT_MS)
        compact = page.locator(".sched-compact")
        assert compact.evaluate("(el) => el.scrollWidth <= el.clientWidth")  # by node: it wraps
        page.click('.view-switch button[data-view="matrix"]')  # the full matrix, one click away
        page.wait_for_selector(".filter-matrix", timeout=TIMEOUT_MS)
        page.wait_for_timeout(400)  # animations settle
        name = f"projector-{language}-{size[0]}x{size[1]}{'-presenter' if presenter else ''}"
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))

        scroll = page.evaluate(
            "[document.scrollingElement.scrollHeight, document.scrollingElement.scrollWidth]"
        )
        assert scroll[0] <= size[1] and scroll[1] <= size[0]  # the page itself never scrolls
        header = page.evaluate(HEADER)
        assert header["height"] <= 60 and header["outside"] == [] and header["wrapped"] == []
        assert not header["urlCut"]
        assert_reachable(page, ALWAYS)
        steps = [f'.step[data-step="{n}"]' for n in range(1, 14)]
        assert_reachable(page, steps)  # all 13 steps, in presenter mode too

        # Wide tables scroll inside their own pane, the first column stays; messages wrap.
        table = page.evaluate("""() => {
          const pane = document.querySelector('.filter-matrix').closest('.matrix-scroll');
          pane.scrollLeft = pane.scrollWidth;
          const first = pane.querySelector('tbody th').getBoundingClientRect();
          const msg = document.querySelector('.sched-msg');
          const text = msg.querySelector('.ev-msg:not(.ev-head)');
          return {paneLeft: pane.getBoundingClientRect().left, firstLeft: first.left,
                  msgRight: msg.getBoundingClientRect().right, textRight: text.getBoundingClientRect().right,
                  msgClips: msg.scrollWidth > msg.clientWidth + 1};
        }""")
        assert abs(table["firstLeft"] - table["paneLeft"]) <= 2  # sticky node column
        assert table["textRight"] <= table["msgRight"] + 0.5 and not table["msgClips"]

        page.click("#tab-yaml")
        assert_reachable(page, ["#yaml-apply", "#yaml-text", "#yaml-example"])
        page.click("#tab-console")
        assert_reachable(page, ["#console-input", "#console-out"])
        page.screenshot(path=str(SCREENSHOTS / f"{name}-console.png"))
        assert page.errors == []
    finally:
        context.close()


def test_the_students_lab_panel_docks_as_a_column_and_covers_nothing(browser, live_server_url):
    code = (
        manage_live(
            live_server_url,
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model\n"
            "from labs.catalog import import_bundled\n"
            "from labs.models import ClassSession, LabDefinition\n"
            "import_bundled()\n"
            "user, _ = get_user_model().objects.get_or_create(username='projector-teacher', is_staff=True)\n"
            "lab = LabDefinition.objects.get(slug='nodeselector')\n"
            "print(ClassSession.objects.create(lab=lab, teacher=user).code)",
        )
        .strip()
        .splitlines()[-1]
    )
    for size in SIZES:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        page = context.new_page()
        try:
            page.goto(f"{live_server_url}/join/")
            page.fill("input[name=code]", code)
            page.fill("input[name=name]", f"Student {size[0]}")
            page.click("button.labs-primary")
            page.wait_for_selector("#lab-panel #lab-steps li", timeout=TIMEOUT_MS)
            page.wait_for_selector('.node-card[data-node="node1"]', timeout=TIMEOUT_MS)
            page.wait_for_timeout(400)
            page.screenshot(path=str(SCREENSHOTS / f"lab-panel-{size[0]}x{size[1]}.png"))
            panel = page.locator("#lab-panel").bounding_box()
            dash = page.locator("#dash").bounding_box()
            assert panel["x"] >= dash["x"] + dash["width"]  # a column of its own, beside the dashboard
            assert panel["x"] + panel["width"] <= size[0] and panel["y"] + panel["height"] <= size[1]
            assert_reachable(page, [*ALWAYS, "#lab-toggle"])
            page.click("#tab-yaml")
            assert_reachable(page, ["#yaml-apply", "#yaml-text"])
            page.click("#lab-toggle")  # collapsed, the dashboard takes the room back
            page.wait_for_timeout(200)
            assert page.locator("#dash").bounding_box()["width"] > dash["width"]
        finally:
            context.close()

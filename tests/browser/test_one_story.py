"""The flow tells one story at a time, forward only, as a class reads it from the back of the room.

The live caption is recorded in the browser with a MutationObserver on #flow-caption. Within a
trace its step number never goes back; every step is captioned, step 13 included, then the
trace's ending, once. A workload's replicas go through steps 7–13 together: one caption names
all its pods and their nodes, and in step mode one Next moves all of them (an RC of 3 in at most
15 presses, each moving the caption). Next is enabled exactly when the server says a step of the
trace waits at the gate, which is when the caption asks for it. Clicking a pod follows that pod.
Screenshots at the three projector sizes in English and Chinese (artifacts/screenshots/).
"""

from __future__ import annotations

import pytest

from bench.server import nginx_rc
from tests.browser.conftest import SCREENSHOTS, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write, open_dashboard
from tests.support.auth import teacher_headers

pytestmark = pytest.mark.browser

PODS = "/clusters/demo/api/v1/namespaces/default/pods"
RCS = "/clusters/demo/api/v1/namespaces/default/replicationcontrollers"
SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
LANGUAGES = ["en", "zh-hans"]

# Every caption the page shows, in order: its trace, number ("end" for the ending), title, pods,
# and its newest meta line.
RECORD_JS = """() => {
  window.__captions = [];
  const box = document.getElementById('flow-caption');
  const record = () => {
    const caption = box.querySelector('.caption');
    if (!caption) return;
    const text = (selector) => (caption.querySelector(selector) || {}).textContent || '';
    const entry = {trace: caption.dataset.trace, num: text('.caption-num'), title: text('.caption-title'),
      pods: text('.caption-pods'), meta: text('.caption-meta')};
    const last = window.__captions[window.__captions.length - 1];
    if (!last || last.trace !== entry.trace || last.num !== entry.num || last.pods !== entry.pods) {
      window.__captions.push(entry);
    } else {
      last.meta = entry.meta;  // a caption's meta line grows links to other stories as they begin
    }
  };
  new MutationObserver(record).observe(box, {childList: true, subtree: true, characterData: true});
}"""


def bare_pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
    }


def flow_setting(page, path: str, body: dict) -> None:
    url = f"{page.base_url}/clusters/demo/flow/{path}"
    response = page.request.post(url, data=body, headers=teacher_headers())
    assert response.ok, response.text()


def captions_of(page, trace_name: str) -> list[dict]:
    """The captions of the trace whose caption first named `trace_name`."""
    captions = page.evaluate("window.__captions")
    traces = {c["trace"] for c in captions if trace_name in c["meta"] or trace_name in c["pods"]}
    return [c for c in captions if c["trace"] in traces]


def number(caption: dict) -> int:
    return 14 if caption["num"] == "end" else int(caption["num"])


def assert_one_story(captions: list[dict]) -> None:
    numbers = [number(c) for c in captions]
    assert numbers == sorted(numbers), numbers  # never backwards
    assert sorted(set(numbers)) == list(range(1, 15)), numbers  # every step, 13, then the ending
    assert [c["num"] for c in captions].count("end") == 1, numbers  # exactly one ending


def wait_for_ending(page, trace_name: str) -> list[dict]:
    page.wait_for_function(
        "(name) => window.__captions.some((c) => c.num === 'end') &&"
        " document.querySelector('.caption-num').textContent === 'end'",
        arg=trace_name,
        timeout=TIMEOUT_MS * 2,
    )
    page.wait_for_timeout(800)  # a second ending, if one came, would be recorded by now
    return captions_of(page, trace_name)


@pytest.fixture
def paced(page):
    open_dashboard(page)
    flow_setting(page, "pace", {"pace_ms": 600})
    page.wait_for_function("() => document.getElementById('pace').value === '600'", timeout=TIMEOUT_MS)
    page.evaluate(RECORD_JS)
    yield page
    flow_setting(page, "pace", {"pace_ms": 60})


def test_a_bare_pod_at_pace_600_is_captioned_step_by_step_to_13_then_its_ending(paced):
    page = paced
    api_write(page, "POST", PODS, bare_pod("story-bare"))
    captions = wait_for_ending(page, "story-bare")
    assert_one_story(captions)
    assert "reached its goal" in captions[-1]["title"]
    page.locator("#flow-panel").screenshot(path=str(SCREENSHOTS / "story-bare-pod-ending.png"))
    api_write(page, "DELETE", f"{PODS}/story-bare", {"gracePeriodSeconds": 0})
    assert page.problems.errors == []


def test_an_rc_of_3_at_pace_600_goes_through_each_step_together(paced):
    page = paced
    api_write(page, "POST", RCS, nginx_rc("story-rc", 3))
    captions = wait_for_ending(page, "story-rc")
    assert_one_story(captions)
    last = {number(caption): caption for caption in captions}  # a step's caption as it ended
    for step in range(7, 14):
        assert last[step]["pods"].count("story-rc-") == 3, last[step]  # one caption names all three
        if step >= 9:
            assert last[step]["pods"].count("→ node") == 3, last[step]  # and the node each goes to
    api_write(page, "DELETE", f"{RCS}/story-rc")
    assert page.problems.errors == []


def test_an_rc_of_3_in_step_mode_takes_at_most_15_presses_each_moving_the_caption(page):
    open_dashboard(page)
    page.evaluate(RECORD_JS)
    flow_setting(page, "step_mode", {"on": True})
    page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
    try:
        api_write(page, "POST", RCS, nginx_rc("story-step", 3))
        page.wait_for_selector("#next-step:enabled", timeout=TIMEOUT_MS)
        presses = 0
        while page.locator(".caption-num").text_content() != "end":
            assert presses < 15, page.evaluate("window.__captions")
            # The caption asks for Next exactly when the button takes it (the server's gate).
            page.wait_for_timeout(300)
            enabled = page.locator("#next-step").is_enabled()
            assert enabled == (page.locator(".caption-wait").count() == 1)
            if not enabled:
                page.wait_for_selector("#next-step:enabled, .caption.is-ending", timeout=TIMEOUT_MS)
                continue
            before = page.evaluate("window.__captions.length")
            if presses == 6:
                page.focus("#step-mode")
                page.keyboard.press("n")  # the N key reads the same state as the button
            else:
                page.click("#next-step")
            presses += 1
            # Every press moves the caption: the next step, or a pod joining the step shown.
            page.wait_for_function("(n) => window.__captions.length > n", arg=before, timeout=TIMEOUT_MS)
        captions = wait_for_ending(page, "story-step")
        assert_one_story(captions)
        assert presses <= 15
        assert page.locator("#next-step").is_disabled()  # the trace ended: nothing waits
        running = ".node-card .pod[data-state='Running'][data-pod^='default/story-step-']"
        assert page.locator(running).count() == 3

        # Clicking a pod follows that pod: its own story, its name in the caption.
        chip = page.locator(".node-card .pod[data-pod^='default/story-step-']").first
        pod = chip.get_attribute("data-pod").split("/")[1]
        chip.click()
        page.keyboard.press("Escape")
        page.wait_for_selector(".caption-follow", timeout=TIMEOUT_MS)
        assert pod in page.locator(".caption-follow").text_content()
        assert page.locator("#trace-select").input_value() == captions[0]["trace"]
        page.click(".caption-follow button")
        page.wait_for_selector(".caption-follow", state="detached", timeout=TIMEOUT_MS)
    finally:
        flow_setting(page, "step_mode", {"on": False})
    api_write(page, "DELETE", f"{RCS}/story-step")
    assert page.problems.errors == []


def open_at(browser, base_url: str, size, language: str):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page = context.new_page()
    sign_in_as_teacher(page, base_url)
    page.goto(f"{base_url}/clusters/demo/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    return context, page


def test_the_group_caption_at_projector_sizes_in_both_languages(page, browser):
    """An RC of 3 held in step mode at step 12: a page opened then shows the step with its three
    pods and their nodes, and asks for Next, at every size, in English and Chinese."""
    open_dashboard(page)
    flow_setting(page, "step_mode", {"on": True})
    try:
        api_write(page, "POST", RCS, nginx_rc("story-shot", 3))
        for step in range(5, 13):
            page.click("#next-step", timeout=TIMEOUT_MS)  # enabled: a step waits for it
            page.wait_for_function(
                "(n) => document.querySelector('.caption-num').textContent === String(n)",
                arg=step,
                timeout=TIMEOUT_MS,
            )
        page.wait_for_selector("#next-step:enabled", timeout=TIMEOUT_MS)  # 13 waits
        for language in LANGUAGES:
            for size in SIZES:
                context, shot = open_at(browser, page.base_url, size, language)
                try:
                    shot.wait_for_selector('.caption[data-step="12"] .caption-pods', timeout=TIMEOUT_MS)
                    shot.wait_for_selector(".caption-wait", timeout=TIMEOUT_MS)
                    assert shot.locator(".caption-pods").text_content().count("story-shot-") == 3
                    assert shot.locator("#next-step").is_enabled()
                    caption = shot.locator("#flow-caption")
                    # Readable without scrolling sideways.
                    assert caption.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
                    shot.wait_for_timeout(400)  # animations settle
                    name = f"story-step12-{language}-{size[0]}x{size[1]}.png"
                    shot.screenshot(path=str(SCREENSHOTS / name))
                finally:
                    context.close()
    finally:
        flow_setting(page, "step_mode", {"on": False})
    page.wait_for_selector(".caption.is-ending", timeout=TIMEOUT_MS)
    api_write(page, "DELETE", f"{RCS}/story-shot")
    assert page.problems.errors == []

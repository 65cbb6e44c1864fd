"""One action, several stories, each told once: `kubectl drain node2 --ignore-daemonsets --force`
(an eviction story per pod, then the controller's replacement story, linked both ways) and a
preemption (the preemptor, its victim's deletion linked to it, the victim's replacement), at pace
600 ms and in step mode.

The live caption is recorded with a MutationObserver (tests/browser/test_one_story.py). Within
each trace the step number never goes back, every step is captioned, 13 included, and a trace
that ends ends once; Next is enabled exactly when the caption asks for it. The server agrees:
each trace has one final ending. Screenshots of an eviction's ending and its links at the three
projector sizes in English and Chinese.
"""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, api_write, console, open_dashboard
from tests.browser.test_one_story import LANGUAGES, SIZES, flow_setting, number, open_at

pytestmark = pytest.mark.browser

NS = "/clusters/demo/api/v1/namespaces/default"
DEPLOYMENTS = "/clusters/demo/apis/apps/v1/namespaces/default/deployments"
STORY_S = 120  # a cascade told at 450 ms a stage at least, by Next or at the pace

# test_one_story's recorder, keeping each caption's newest meta line too (its links to other
# stories appear as those stories begin).
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
      last.meta = entry.meta;
    }
  };
  new MutationObserver(record).observe(box, {childList: true, subtree: true, characterData: true});
}"""


def rc(name: str, replicas: int, cpu: str = "") -> dict:
    container = {"name": "web", "image": "nginx:1.15"}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    return {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"app": name},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def deployment(name: str, replicas: int, cpu: str) -> dict:
    template = rc(name, replicas, cpu)["spec"]["template"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "template": template},
    }


def traces_since(page, since: str) -> dict[str, dict]:
    """The server's traces begun after `since` (ISO time), by id."""
    response = page.request.get(f"{page.base_url}/clusters/demo/snapshot")
    assert response.ok
    return {t["id"]: t for t in response.json()["traces"] if t["created_at"] > since}


def traces_clock(page) -> str:
    """The newest trace's start: later traces are this action's."""
    response = page.request.get(f"{page.base_url}/clusters/demo/snapshot")
    found = [t["created_at"] for t in response.json()["traces"]]
    return max(found) if found else ""


def tell(page, step_mode: bool, done, presses: list[int]) -> None:
    """Let the stories be told until `done()`: in step mode pressing Next whenever it is enabled,
    which must be exactly when the caption asks for it."""
    deadline = time.monotonic() + STORY_S
    while not done():
        assert time.monotonic() < deadline, page.evaluate("window.__captions")
        page.wait_for_timeout(300)
        if not step_mode:
            continue
        enabled = page.locator("#next-step").is_enabled()
        asks = page.locator(".caption-wait").count() == 1
        if enabled != asks:  # the two may change between the two reads: look again
            page.wait_for_timeout(150)
            enabled = page.locator("#next-step").is_enabled()
            asks = page.locator(".caption-wait").count() == 1
        assert enabled == asks, page.evaluate("window.__captions.slice(-3)")
        if enabled:
            page.click("#next-step")
            presses.append(1)


def told(page, ids) -> dict[str, list[dict]]:
    captions = page.evaluate("window.__captions")
    return {trace: [c for c in captions if c["trace"] == trace] for trace in ids}


def assert_told_once(captions: list[dict], reaches_13: bool = True) -> None:
    numbers = [number(c) for c in captions]
    assert numbers == sorted(numbers), numbers  # never backwards
    assert [c["num"] for c in captions].count("end") <= 1, numbers  # never two endings
    if reaches_13:
        assert sorted(set(numbers)) == list(range(1, 15)), numbers  # every step, 13, the ending


def all_told(page, ids) -> bool:
    stories = told(page, ids)
    return all(any(c["num"] == "end" for c in stories[trace]) for trace in ids)


@pytest.fixture
def recorded(page, request):
    open_dashboard(page)
    step_mode = request.param == "step"
    flow_setting(page, "pace", {"pace_ms": 600})
    if step_mode:
        flow_setting(page, "step_mode", {"on": True})
        page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
    page.evaluate(RECORD_JS)
    yield page, step_mode
    flow_setting(page, "step_mode", {"on": False})
    flow_setting(page, "pace", {"pace_ms": 60})


def _wait_running(page, prefix: str, count: int) -> None:
    running = f".node-card .pod[data-state='Running'][data-pod^='default/{prefix}-']"
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n",
        arg=[running, count],
        timeout=STORY_S * 1000,
    )


@pytest.mark.parametrize("recorded", ["pace", "step"], indirect=True)
def test_drain_tells_each_eviction_then_the_replacement_each_once(recorded, browser):
    page, step_mode = recorded
    name = f"drain-{'step' if step_mode else 'pace'}"
    flow_setting(page, "step_mode", {"on": False})  # the workload starts unstepped
    api_write(page, "POST", f"{NS}/replicationcontrollers", rc(name, 4))
    _wait_running(page, name, 4)
    on_node2 = page.locator(f".node-card[data-node='node2'] .pod[data-pod^='default/{name}-']").count()
    assert on_node2 >= 1
    page.wait_for_timeout(1500)  # the workload's story told
    if step_mode:
        flow_setting(page, "step_mode", {"on": True})
        page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
    since = traces_clock(page)
    page.evaluate("window.__captions = []")
    presses: list[int] = []
    console(page, "drain node2 --ignore-daemonsets --force", expect="evicting pod")
    ours = {}

    def done() -> bool:
        nonlocal ours
        ours = traces_since(page, since)
        evictions = [t for t in ours.values() if t["verb"] == "evict"]
        ended = ours and all(t["ending"] for t in ours.values())
        return bool(evictions) and ended and all_told(page, ours)

    try:
        tell(page, step_mode, done, presses)
        page.wait_for_function(
            "() => document.getElementById('console-out').textContent.includes('node/node2 drained')",
            timeout=STORY_S * 1000,
        )
        evictions = [t for t in ours.values() if t["verb"] == "evict"]
        replacements = [t for t in ours.values() if t["verb"] == "replace"]
        assert len(evictions) >= on_node2 and replacements
        stories = told(page, ours)
        for captions in stories.values():
            assert_told_once(captions)
        for trace in evictions:
            ending = stories[trace["id"]][-1]
            assert ending["title"].startswith("Evicted from node2 (grace "), ending
            assert trace["ending"]["final"] and trace["ending"]["outcome"] == "deleted"
        linked = {cause for t in replacements for cause in t["causes"]}
        assert linked & {t["id"] for t in evictions if t["name"].startswith(name)}
        for trace in replacements:
            assert "replaces evict Pod default/" in stories[trace["id"]][-1]["meta"]
        if step_mode:
            assert presses, "the replacement's steps 5–13 wait for Next"
        # An eviction's ending with its link to the replacement, at every size, in both languages.
        evicted = next(t for t in evictions if t["id"] in linked)
        for language in LANGUAGES:
            for size in SIZES:
                context, shot = open_at(browser, page.base_url, size, language)
                try:
                    shot.select_option("#trace-select", evicted["id"])
                    shot.wait_for_selector(".caption.is-ending .caption-link", timeout=TIMEOUT_MS)
                    caption = shot.locator("#flow-caption")
                    assert caption.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
                    title = shot.locator(".caption-title").text_content()
                    assert ("Evicted from node2" if language == "en" else "已从 node2 驱逐") in title
                    shot.wait_for_timeout(400)
                    shot.screenshot(
                        path=str(SCREENSHOTS / f"eviction-ending-{language}-{size[0]}x{size[1]}.png")
                    )
                    shot.click(".caption-link")  # the link shows the replacement's story
                    shot.wait_for_function(
                        "(id) => document.getElementById('trace-select').value === id",
                        arg=next(t["id"] for t in replacements if evicted["id"] in t["causes"]),
                        timeout=TIMEOUT_MS,
                    )
                finally:
                    context.close()
    finally:
        flow_setting(page, "step_mode", {"on": False})
        console(page, "uncordon node2", expect="uncordoned")
        api_write(page, "DELETE", f"{NS}/replicationcontrollers/{name}")
    assert page.problems.errors == []


@pytest.mark.parametrize("recorded", ["pace", "step"], indirect=True)
def test_a_preemption_tells_the_preemptor_its_victim_and_the_replacement_each_once(recorded):
    page, step_mode = recorded
    suffix = "step" if step_mode else "pace"
    filler, vip = f"filler-{suffix}", f"vip-{suffix}"
    flow_setting(page, "step_mode", {"on": False})
    klass = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": f"high-{suffix}"},
    }
    api_write(
        page, "POST", "/clusters/demo/apis/scheduling.k8s.io/v1/priorityclasses", {**klass, "value": 1000}
    )
    api_write(page, "POST", DEPLOYMENTS, deployment(filler, 4, "1800m"))
    _wait_running(page, filler, 4)
    page.wait_for_timeout(1500)
    if step_mode:
        flow_setting(page, "step_mode", {"on": True})
        page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
    since = traces_clock(page)
    page.evaluate("window.__captions = []")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": vip},
        "spec": {
            "priorityClassName": f"high-{suffix}",
            "containers": [{"name": "web", "image": "nginx:1.15", "resources": {"requests": {"cpu": "1"}}}],
        },
    }
    presses: list[int] = []
    ours: dict[str, dict] = {}

    def done() -> bool:
        nonlocal ours
        ours = traces_since(page, since)
        preemptor = [t for t in ours.values() if t["name"] == vip]
        victims = [t for t in ours.values() if t["verb"] == "preempt"]
        replaced = [t for t in ours.values() if t["verb"] == "replace"]
        if not (preemptor and victims and replaced):
            return False
        ends = [*preemptor, *victims]
        parked = told(page, [replaced[0]["id"]])[replaced[0]["id"]]
        return (
            all(t["ending"] for t in ends)
            and all_told(page, [t["id"] for t in ends])
            and any(c["num"] == "9" for c in parked)
        )

    try:
        api_write(page, "POST", f"{NS}/pods", pod)
        tell(page, step_mode, done, presses)
        [preemptor] = [t for t in ours.values() if t["name"] == vip]
        [victim] = [t for t in ours.values() if t["verb"] == "preempt"]
        [replaced] = [t for t in ours.values() if t["verb"] == "replace"]
        assert victim["causes"] == [preemptor["id"]] and replaced["causes"] == [victim["id"]]
        stories = told(page, ours)
        assert_told_once(stories[preemptor["id"]])
        assert_told_once(stories[victim["id"]])
        assert_told_once(stories[replaced["id"]], reaches_13=False)  # it waits for a node
        nine = [c for c in stories[preemptor["id"]] if c["num"] == "9"][-1]
        assert f"victim: preempt Pod default/{victim['name']}" in nine["meta"], nine
        end = stories[victim["id"]][-1]
        assert end["title"].startswith(f"Preempted by default/{vip}, gone from node"), end
        assert f"preempted by Pod default/{vip}" in end["meta"]
        assert not replaced["ending"]
        # The filler goes: the waiting replacement's story ends, once.
        api_write(page, "DELETE", f"{DEPLOYMENTS}/{filler}")
        deadline = time.monotonic() + STORY_S
        while not traces_since(page, since)[replaced["id"]]["ending"]:
            assert time.monotonic() < deadline
            page.wait_for_timeout(300)
            if step_mode and page.locator("#next-step").is_enabled():
                page.click("#next-step")
        for trace in traces_since(page, since).values():
            if trace["id"] in ours:
                assert trace["ending"] and trace["ending"]["final"], trace["name"]
    finally:
        flow_setting(page, "step_mode", {"on": False})
        api_write(page, "DELETE", f"{NS}/pods/{vip}", {"gracePeriodSeconds": 0})
        api_write(page, "DELETE", f"/clusters/demo/apis/scheduling.k8s.io/v1/priorityclasses/high-{suffix}")
    assert page.problems.errors == []

"""One action, several stories, each told once: `kubectl drain node2 --ignore-daemonsets --force`
(an eviction story per pod, then the controller's replacement story, linked both ways) and a
preemption (the preemptor, its victim's deletion linked to it, the victim's replacement), at pace
600 ms and in step mode.

The live caption is recorded with a MutationObserver (tests/browser/test_one_story.py). The view
follows the newest trace: within each trace it shows, the step number never goes back and there
is one ending at most; the story it follows last is told whole (13 included, then its ending);
Next is enabled exactly when the caption asks for it. The server agrees: each trace has one final
ending. The caption's links lead from each story to the others. Screenshots of an eviction's
ending and its links at the three projector sizes in English and Chinese.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, api_write, console, open_dashboard
from tests.browser.test_one_story import LANGUAGES, RECORD_JS, SIZES, flow_setting, number, open_at
from tests.support.auth import teacher_headers

pytestmark = pytest.mark.browser

NS = "/clusters/demo/api/v1/namespaces/default"
DEPLOYMENTS = "/clusters/demo/apis/apps/v1/namespaces/default/deployments"
STORY_S = 120  # a cascade told at 450 ms a stage at least, by Next or at the pace


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


def tell(page, step_mode: bool, done, presses: list[int], since: str = "") -> bool:
    """Let the stories be told until `done()`: in step mode pressing Next whenever it is enabled,
    which must be exactly when the caption asks for it. A story waiting for Next that the view
    does not follow (the newest is another) is picked in the trace picker, as a teacher would;
    True when one was."""
    deadline = time.monotonic() + STORY_S
    idle = 0
    picked = False
    while not done():
        assert time.monotonic() < deadline, page.evaluate("window.__captions.slice(-12)")
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
            idle = 0
            continue
        idle += 1
        if idle >= 6:
            waiting = [
                t for t in traces_since(page, since).values() if t["gate_step"] and not t["finished_at"]
            ]
            page.select_option("#trace-select", waiting[0]["id"] if waiting else "")
            picked = picked or bool(waiting)
            idle = 0
    return picked


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


def newest(traces: dict[str, dict]) -> dict:
    return max(traces.values(), key=lambda t: t["created_at"])


@pytest.mark.parametrize("recorded", ["pace", "step"], indirect=True)
def test_drain_tells_each_eviction_and_the_replacement_each_once_linked(recorded, browser):
    page, step_mode = recorded
    name = f"drain-{'step' if step_mode else 'pace'}"
    presses: list[int] = []
    ours: dict[str, dict] = {}
    try:
        flow_setting(page, "step_mode", {"on": False})  # the workload starts unstepped
        api_write(page, "POST", f"{NS}/replicationcontrollers", rc(name, 4))
        _wait_running(page, name, 4)
        on_node2 = page.locator(f".node-card[data-node='node2'] .pod[data-pod^='default/{name}-']").count()
        assert on_node2 >= 1
        if step_mode:
            flow_setting(page, "step_mode", {"on": True})
            page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
        since = traces_clock(page)
        console(page, "drain node2 --ignore-daemonsets --force", expect="evicting pod")

        def done() -> bool:
            nonlocal ours
            ours = traces_since(page, since)
            if not any(t["verb"] == "replace" for t in ours.values()) or not all(
                t["ending"] for t in ours.values()
            ):
                return False
            return any(c["num"] == "end" for c in told(page, [newest(ours)["id"]])[newest(ours)["id"]])

        picked = tell(page, step_mode, done, presses, since)
        page.wait_for_function(
            "() => document.getElementById('console-out').textContent.includes('node/node2 drained')",
            timeout=STORY_S * 1000,
        )
        evictions = [t for t in ours.values() if t["verb"] == "evict"]
        replacements = [t for t in ours.values() if t["verb"] == "replace"]
        assert len(evictions) >= on_node2 and replacements
        stories = told(page, ours)
        for captions in stories.values():
            assert_told_once(captions, reaches_13=False)
        if not picked:
            assert_told_once(stories[newest(ours)["id"]])  # the story followed last, told whole
        for trace in evictions:
            assert trace["ending"]["final"] and trace["ending"]["outcome"] == "deleted"
            assert trace["ending"]["title"]["en"].startswith("Evicted from node2 (grace "), trace["ending"]
        for trace in replacements:
            assert trace["ending"]["outcome"] == "completed" and trace["causes"]
            assert {c for c in trace["causes"]} <= {t["id"] for t in evictions}
        if step_mode:
            assert presses, "the replacement's steps 5–13 wait for Next"
        # The replacement's caption links to the evictions it follows; a link shows that story.
        replaced = replacements[-1]
        page.select_option("#trace-select", replaced["id"])
        page.wait_for_selector(f'.caption[data-trace="{replaced["id"]}"]', timeout=TIMEOUT_MS)
        link = page.locator(".caption-meta .caption-link", has_text="replaces evict Pod default/").first
        link.wait_for(timeout=TIMEOUT_MS)
        shown = link.get_attribute("data-trace")
        link.click()
        page.wait_for_selector(f'.caption.is-ending[data-trace="{shown}"] .caption-link', timeout=TIMEOUT_MS)
        assert page.locator(".caption-title").text_content().startswith("Evicted from node2 (grace ")
        assert "replacement: ReplicationController default/" in page.locator(".caption-meta").text_content()
        # An eviction's ending with its link to the replacement, at every size, in both languages.
        evicted = next(t for t in evictions if t["id"] in replaced["causes"])
        for language in LANGUAGES:
            for size in SIZES:
                context, shot = open_at(browser, page.base_url, size, language)
                try:
                    ending = f'.caption.is-ending[data-trace="{evicted["id"]}"] .caption-link'
                    shot.select_option("#trace-select", evicted["id"])
                    try:
                        shot.wait_for_selector(ending, timeout=5000)
                    except PlaywrightTimeout:
                        # The page's live snapshot can land after the pick and set the picker back
                        # to following the newest story: pick again once it is live.
                        shot.select_option("#trace-select", evicted["id"])
                        shot.wait_for_selector(ending, timeout=TIMEOUT_MS)
                    caption = shot.locator("#flow-caption")
                    assert caption.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
                    title = shot.locator(".caption-title").text_content()
                    assert ("Evicted from node2" if language == "en" else "已从 node2 驱逐") in title
                    shot.wait_for_timeout(400)
                    shot.screenshot(
                        path=str(SCREENSHOTS / f"eviction-ending-{language}-{size[0]}x{size[1]}.png")
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
    klass = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": f"high-{suffix}"},
    }
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
    try:
        flow_setting(page, "step_mode", {"on": False})
        api_write(
            page, "POST", "/clusters/demo/apis/scheduling.k8s.io/v1/priorityclasses", {**klass, "value": 1000}
        )
        api_write(page, "POST", DEPLOYMENTS, deployment(filler, 4, "1800m"))
        _wait_running(page, filler, 4)
        if step_mode:
            flow_setting(page, "step_mode", {"on": True})
            page.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
        since = traces_clock(page)
        api_write(page, "POST", f"{NS}/pods", pod)

        def done() -> bool:
            nonlocal ours
            ours = traces_since(page, since)
            kinds = {t["verb"] for t in ours.values()}
            if not {"create", "preempt", "replace"} <= kinds:
                return False
            replaced = next(t for t in ours.values() if t["verb"] == "replace")
            ended = all(t["ending"] for t in ours.values() if t["verb"] != "replace")
            parked = any(c["num"] == "9" for c in told(page, [replaced["id"]])[replaced["id"]])
            return ended and parked and page.locator(".caption-parked").count() == 1

        tell(page, step_mode, done, presses, since)
        [preemptor] = [t for t in ours.values() if t["name"] == vip]
        [victim] = [t for t in ours.values() if t["verb"] == "preempt"]
        [replaced] = [t for t in ours.values() if t["verb"] == "replace"]
        assert victim["causes"] == [preemptor["id"]] and replaced["causes"] == [victim["id"]]
        stories = told(page, ours)
        for captions in stories.values():
            assert_told_once(captions, reaches_13=False)
        assert not replaced["ending"]  # its pod waits for a node
        assert preemptor["ending"]["final"] and preemptor["ending"]["outcome"] == "completed"
        title = victim["ending"]["title"]["en"]
        assert title.startswith(f"Preempted by default/{vip}, gone from node"), title
        # The links: the victim's story names its preemptor and its replacement; the preemptor's
        # names its victim.
        page.select_option("#trace-select", victim["id"])
        page.wait_for_selector(f'.caption.is-ending[data-trace="{victim["id"]}"]', timeout=TIMEOUT_MS)
        meta = page.locator(".caption-meta").text_content()
        assert (
            f"preempted by Pod default/{vip}" in meta and f"replacement: ReplicaSet default/{filler}-" in meta
        )
        page.click(f".caption-link:has-text('preempted by Pod default/{vip}')")
        page.wait_for_selector(f'.caption.is-ending[data-trace="{preemptor["id"]}"]', timeout=TIMEOUT_MS)
        assert f"victim: preempt Pod default/{victim['name']}" in page.locator(".caption-meta").text_content()
        # The filler goes: the waiting replacement's story ends, once.
        api_write(page, "DELETE", f"{DEPLOYMENTS}/{filler}")
        deadline = time.monotonic() + STORY_S
        while not traces_since(page, since)[replaced["id"]]["ending"]:
            assert time.monotonic() < deadline
            page.wait_for_timeout(300)
            if step_mode and page.locator("#next-step").is_enabled():
                page.click("#next-step")
        for trace in traces_since(page, since).values():
            assert trace["ending"] and trace["ending"]["final"], trace["name"]
    finally:
        flow_setting(page, "step_mode", {"on": False})
        for path in (f"{DEPLOYMENTS}/{filler}", f"{NS}/pods/{vip}"):
            page.request.fetch(f"{page.base_url}{path}", method="DELETE", headers=teacher_headers())
        page.request.fetch(
            f"{page.base_url}/clusters/demo/apis/scheduling.k8s.io/v1/priorityclasses/high-{suffix}",
            method="DELETE",
            headers=teacher_headers(),
        )
        page.wait_for_function(
            "(p) => !document.querySelector(`.pod[data-pod^='default/${p}']`)",
            arg=filler,
            timeout=STORY_S * 1000,
        )
    assert page.problems.errors == []

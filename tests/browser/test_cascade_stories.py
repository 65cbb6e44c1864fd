"""One action, several stories, each told once: `kubectl drain node2 --ignore-daemonsets --force`
(an eviction story per pod, then the controller's replacement story, linked both ways) and a
preemption (the preemptor, its victim's deletion linked to it, the victim's replacement), at pace
600 ms and in step mode.

The live caption is recorded with a MutationObserver (tests/browser/test_one_story.py). Following,
the view tells each story the page saw begin to its end before the next, in the order they
began, and goes back to a story that waited for the cluster once it moves again: in every trace
the step number never goes back, every trace that reaches step 13 has 13 captioned, and every
trace that ended has its ending captioned exactly once, without picking anything. Next is enabled
exactly when the caption asks for it. The server agrees: each trace has one final ending. The
caption's links lead from each story to the others. Screenshots of the drain told story after
story and of an eviction's ending at the three projector sizes in English and Chinese.
"""

from __future__ import annotations

import time

import pytest

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


def tell(page, step_mode: bool, done, presses: list[int]) -> None:
    """Let the stories be told until `done()`: in step mode pressing Next whenever it is enabled,
    which must be exactly when the caption asks for it. Nothing is picked: the view follows."""
    deadline = time.monotonic() + STORY_S
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


def told(page, ids) -> dict[str, list[dict]]:
    captions = page.evaluate("window.__captions")
    return {trace: [c for c in captions if c["trace"] == trace] for trace in ids}


def assert_told_once(captions: list[dict], trace: dict) -> None:
    """The trace's captions never go back, include 13 when the server has a step 13 of it, and
    end exactly once when it ended (at most once while it has not)."""
    numbers = [number(c) for c in captions]
    assert numbers == sorted(numbers), (trace["name"], numbers)  # never backwards
    if "13" in trace["step_counts"]:
        assert 13 in numbers, (trace["verb"], trace["name"], numbers)
    endings = [c["num"] for c in captions].count("end")
    assert endings == (1 if trace["ending"] else 0), (trace["verb"], trace["name"], numbers)


def all_told(page, traces: dict[str, dict]) -> bool:
    """Every trace that ended has its ending captioned."""
    stories = told(page, traces)
    return all(any(c["num"] == "end" for c in stories[i]) for i, t in traces.items() if t["ending"])


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
        # Pages following at every size, in both languages (at pace: one drain for all).
        shots = (
            []
            if step_mode
            else [
                (*open_at(browser, page.base_url, size, lang), lang, size)
                for lang in LANGUAGES
                for size in SIZES
            ]
        )
        console(page, "drain node2 --ignore-daemonsets --force", expect="evicting pod")
        for context, shot, language, size in shots:
            try:
                # A story told while others wait after it, the meta line says how many.
                shot.wait_for_selector(".caption-queue", timeout=TIMEOUT_MS)
                assert shot.locator("#flow-caption").evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
                shot.screenshot(path=str(SCREENSHOTS / f"drain-followed-{language}-{size[0]}x{size[1]}.png"))
            finally:
                context.close()

        def done() -> bool:
            nonlocal ours
            ours = traces_since(page, since)
            if not any(t["verb"] == "replace" for t in ours.values()) or not all(
                t["ending"] for t in ours.values()
            ):
                return False
            return all_told(page, ours)

        tell(page, step_mode, done, presses)
        page.wait_for_function(
            "() => document.getElementById('console-out').textContent.includes('node/node2 drained')",
            timeout=STORY_S * 1000,
        )
        evictions = [t for t in ours.values() if t["verb"] == "evict"]
        replacements = [t for t in ours.values() if t["verb"] == "replace"]
        assert len(evictions) >= on_node2 and replacements
        # Each story told whole, one after the other, none picked: every eviction and the
        # replacement captioned at 13, each ending once.
        stories = told(page, ours)
        for trace_id, captions in stories.items():
            assert_told_once(captions, ours[trace_id])
        for trace in evictions + replacements:
            assert "13" in trace["step_counts"], trace
        order = [c["trace"] for c in page.evaluate("window.__captions") if c["trace"] in ours]
        assert [t for i, t in enumerate(order) if t not in order[:i]][: len(evictions)] == [
            t["id"] for t in sorted(evictions, key=lambda t: t["created_at"])
        ], "the evictions are told in the order they began"
        assert not page.evaluate("window.__captions.some((c) => c.meta.includes('skipped to keep up'))")
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
                    shot.wait_for_selector(ending, timeout=TIMEOUT_MS)
                    assert shot.locator("#trace-select").input_value() == evicted["id"]  # the pick kept
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
            others = {i: t for i, t in ours.items() if t["verb"] != "replace"}
            ended = all(t["ending"] for t in others.values()) and all_told(page, others)
            parked = any(c["num"] == "9" for c in told(page, [replaced["id"]])[replaced["id"]])
            return ended and parked and page.locator(".caption-parked").count() == 1

        tell(page, step_mode, done, presses)
        [preemptor] = [t for t in ours.values() if t["name"] == vip]
        [victim] = [t for t in ours.values() if t["verb"] == "preempt"]
        [replaced] = [t for t in ours.values() if t["verb"] == "replace"]
        assert victim["causes"] == [preemptor["id"]] and replaced["causes"] == [victim["id"]]
        stories = told(page, ours)
        for trace_id, captions in stories.items():
            assert_told_once(captions, ours[trace_id])
        for trace in (preemptor, victim):
            assert "13" in trace["step_counts"], trace  # so captioned at 13 (above)
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
        # Following again, the filler goes (and with it the replacement's pod, deleted while it
        # waits): the waiting replacement's story is told on from its step 9 to its ending, once.
        page.select_option("#trace-select", "")
        api_write(page, "DELETE", f"{DEPLOYMENTS}/{filler}")
        rid = replaced["id"]

        def replaced_told() -> bool:
            nonlocal replaced
            replaced = traces_since(page, since)[rid]
            return bool(replaced["ending"]) and all_told(page, {rid: replaced})

        tell(page, step_mode, replaced_told, presses)
        assert_told_once(told(page, [rid])[rid], replaced)
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

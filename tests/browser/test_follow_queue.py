"""Following never lags unboundedly: more stories begun at once than the view keeps waiting (6)
are told in turn after the oldest are skipped, and the caption says so.

Nine bare pods are created at once at pace 600 ms. The view tells the first story whole; then
eight wait, so it skips the two oldest of them (never captioned, the meta line says "stories
skipped to keep up: 2") and tells the six others in turn, each whole: every step, 13 included,
and one ending, never going back.
"""

from __future__ import annotations

import time

import pytest

from tests.browser.helpers import TIMEOUT_MS, api_write, open_dashboard, remove_pods
from tests.browser.test_one_story import RECORD_JS, bare_pod, flow_setting, number

pytestmark = pytest.mark.browser

PODS = "/clusters/demo/api/v1/namespaces/default/pods"
COUNT = 9
STORIES_S = 120


def test_a_burst_of_stories_is_told_in_turn_skipping_the_oldest_beyond_six_with_a_note(page):
    names = [f"queue-{i}" for i in range(COUNT)]
    open_dashboard(page)
    flow_setting(page, "pace", {"pace_ms": 600})
    page.wait_for_function("() => document.getElementById('pace').value === '600'", timeout=TIMEOUT_MS)
    page.evaluate(RECORD_JS)
    try:
        for i, name in enumerate(names):
            pod = bare_pod(name)
            pod["spec"]["nodeName"] = f"node{1 + i % 2}"
            api_write(page, "POST", PODS, pod)
        deadline = time.monotonic() + STORIES_S
        while not any(c["num"] == "end" for c in stories(page, names).get(names[-1], [])):
            assert time.monotonic() < deadline, sorted(stories(page, names))
            page.wait_for_timeout(500)
        page.wait_for_timeout(800)  # a second ending, if one came, would be recorded by now
        told = stories(page, names)
        skipped = [n for n in names if n not in told]
        assert skipped == names[1:3], sorted(told)  # the two oldest waiting, never captioned
        notes = {
            c["trace"]
            for c in page.evaluate("window.__captions")
            if "stories skipped to keep up: 2" in c["meta"]
        }
        assert notes == {told[names[3]][0]["trace"]}  # on the story told after them
        for name, story in told.items():
            numbers = [number(c) for c in story]
            assert numbers == sorted(numbers), (name, numbers)  # never back
            assert sorted(set(numbers)) == list(range(1, 15)), (name, numbers)  # whole, 13 and the ending
            assert [c["num"] for c in story].count("end") == 1, (name, numbers)
    finally:
        remove_pods(page, names)
        flow_setting(page, "pace", {"pace_ms": 60})
    assert page.problems.errors == []


def stories(page, names: list[str]) -> dict[str, list[dict]]:
    """The captions recorded, by the pod whose story they tell (a caption's meta line names it)."""
    captions = page.evaluate("window.__captions")
    ids = {}
    for caption in captions:
        for name in names:
            if f"Pod {name} " in f"{caption['meta']} ":
                ids[caption["trace"]] = name
    return {name: [c for c in captions if c["trace"] == trace] for trace, name in ids.items()}

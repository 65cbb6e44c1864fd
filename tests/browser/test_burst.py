"""A burst on a big cluster: while hundreds of pods arrive the page redraws only the cards on
screen, stills its animations, and once the burst is over every card shows every pod it runs."""

from __future__ import annotations

import pytest

from bench.server import nginx_rc
from tests.browser.conftest import SCREENSHOTS, manage_live
from tests.browser.helpers import TIMEOUT_MS, api_write

pytestmark = pytest.mark.browser

NODES = 24
REPLICAS = 240


def _cards(page) -> dict[str, dict]:
    """Each card's pod chips (by state) and the pods its bar counts."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.node-card')].map((card) => [
          card.dataset.node,
          {chips: [...card.querySelectorAll('.pods .pod')].map((chip) => chip.dataset.state),
           bar: card.querySelectorAll('.bar-text')[2].textContent}]))"""
    )


def test_a_burst_redraws_the_cards_on_screen_and_every_card_catches_up_after_it(page):
    manage_live(
        page.base_url,
        "shell",
        "-c",
        f"from cluster.controlplane.demo import create_many; create_many('crowd', {NODES}, pace_ms=0)",
    )
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{page.base_url}/clusters/crowd/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_function(f"document.querySelectorAll('.node-card').length === {NODES}", timeout=TIMEOUT_MS)
    # The classes that still the page's animations, as every frame of the burst saw them.
    page.evaluate(
        """() => {
          window.__seen = {calm: false, brisk: false};
          const tick = () => {
            const panel = document.getElementById('cluster-panel');
            const flow = document.getElementById('flow-panel');
            if (panel.classList.contains('is-calm')) window.__seen.calm = true;
            if (flow.classList.contains('is-brisk')) window.__seen.brisk = true;
            if (!window.__stop) requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        }"""
    )
    path = "/clusters/crowd/api/v1/namespaces/default/replicationcontrollers"
    api_write(page, "POST", path, nginx_rc("crowd", REPLICAS))
    page.wait_for_function(
        "() => document.getElementById('cluster-panel').classList.contains('is-calm')", timeout=TIMEOUT_MS
    )
    seen = page.evaluate("() => window.__seen")
    assert seen["calm"], "a burst of hundreds of pods left the chips' animations on"

    # The cards off screen were left behind while the burst lasted: once it is over, each shows
    # every pod it runs, as its bar counts them.
    page.wait_for_function(
        "() => !document.getElementById('cluster-panel').classList.contains('is-calm')", timeout=60_000
    )
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('.node-card .pods .pod')]
                 .filter((chip) => chip.dataset.state === 'Running').length === {REPLICAS}""",
        timeout=60_000,
    )
    page.evaluate("() => { window.__stop = true; }")
    assert page.evaluate("() => window.__seen.brisk"), "steps at pace 0 were animated one by one"
    cards = _cards(page)
    assert sum(len(card["chips"]) for card in cards.values()) == REPLICAS
    for name, card in cards.items():
        assert card["bar"] == f"{len(card['chips'])} / 110", f"{name}: {card}"
        assert set(card["chips"]) <= {"Running"}, f"{name}: {card}"
    assert page.locator("#flow-panel.is-brisk").count() == 0, "the flow stayed still after the burst"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "burst-caught-up-1280x720.png"))

"""Strict input on the page, as kubectl's fieldValidation=Strict: the tolerations mistake (put
under the container, where a Pod has no such field) is refused on the YAML form and in the web
console with the text the real kubectl prints, at its line, and nothing is created."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, apply_yaml, console, open_dashboard
from tests.support.strict import KUBECTL_TEXT
from tests.support.strict import TOLERATIONS_UNDER_THE_CONTAINER as MISTAKE

pytestmark = pytest.mark.browser


def test_the_tolerations_mistake_is_refused_on_the_form_at_its_line(page):
    page.set_viewport_size({"width": 1600, "height": 1000})
    open_dashboard(page)
    apply_yaml(page, MISTAKE)
    page.wait_for_selector("#yaml-result .result-fail", timeout=TIMEOUT_MS)
    error = page.locator("#yaml-result .yaml-error")
    assert error.count() == 1
    assert error.get_attribute("data-line") == "9"
    where = error.locator(".err-where").text_content()
    assert where == "document 1 · line 9 · spec.containers[0].tolerations"
    assert error.locator(".err-msg").text_content() == KUBECTL_TEXT
    assert page.locator("#yaml-gutter .gl.is-error").all_text_contents() == ["9"]
    page.locator("#yaml-result").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "strict-form-tolerations-1600x1000.png"))
    page.wait_for_timeout(500)
    assert page.locator('.pod[data-pod="default/gpu-job"]').count() == 0


def test_the_tolerations_mistake_is_refused_in_the_console_with_kubectls_text(page):
    open_dashboard(page)
    console(page, "apply -f -", expect="Ctrl+Enter")
    page.fill("#console-stdin", MISTAKE)
    page.press("#console-stdin", "Control+Enter")
    expected = f'Error from server (BadRequest): error when creating "STDIN": {KUBECTL_TEXT}\n'
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('#console-out > span')].some((s) => s.textContent === text)",
        arg=expected,
        timeout=TIMEOUT_MS,
    )
    page.wait_for_timeout(500)
    assert page.locator('.pod[data-pod="default/gpu-job"]').count() == 0

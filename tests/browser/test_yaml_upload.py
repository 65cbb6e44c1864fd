"""The YAML form: all or nothing, errors at their line and field."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser

TWO_DOCUMENTS = """\
apiVersion: v1
kind: Pod
metadata:
  name: half-one
spec:
  containers:
    - name: web
      image: nginx:1.15
---
apiVersion: v1
kind: Pod
metadata:
  name: Half_Two
spec:
  containers:
    - name: web
      image: nginx:1.15
"""


def test_a_yaml_error_is_shown_at_its_line_and_nothing_is_applied(page):
    open_dashboard(page)
    apply_yaml(page, TWO_DOCUMENTS)
    page.wait_for_selector("#yaml-result .result-fail", timeout=TIMEOUT_MS)
    error = page.locator("#yaml-result .yaml-error").first
    assert error.get_attribute("data-line") == "13"
    assert "line 13" in error.text_content()
    assert "metadata.name" in error.text_content()
    assert page.locator("#yaml-gutter .gl.is-error").all_text_contents() == ["13"]
    page.wait_for_timeout(500)
    assert page.locator('.pod[data-pod="default/half-one"]').count() == 0


def test_a_syntax_error_is_shown_at_its_line(page):
    open_dashboard(page)
    apply_yaml(page, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n  labels: [unclosed\n")
    page.wait_for_selector("#yaml-result .result-fail", timeout=TIMEOUT_MS)
    line = page.locator("#yaml-result .yaml-error").first.get_attribute("data-line")
    assert line is not None and int(line) >= 5


def test_an_opened_file_the_console_cannot_keep_says_why(page):
    open_dashboard(page)
    page.set_input_files(
        "#yaml-file", files=[{"name": "mine.yaml", "mimeType": "text/yaml", "buffer": b"# big\n" * 50_000}]
    )
    toast = page.locator(".toast-error").first
    toast.wait_for(timeout=TIMEOUT_MS)
    assert toast.text_content() == (
        'The file is not kept in the console\'s working directory: error: "mine.yaml" is larger than 256 KiB'
    )
    page.set_input_files(
        "#yaml-file", files=[{"name": "ok.yaml", "mimeType": "text/yaml", "buffer": b"a: 1\n"}]
    )
    page.wait_for_timeout(500)
    assert page.locator(".toast-error").count() <= 1  # the kept file raised no new error

"""The web console prints what kubectl prints (cluster.kubeapi's tables and describe, one implementation)."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, console, open_dashboard, pod_chip

pytestmark = pytest.mark.browser

NODENAME_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: console-pod
  labels:
    app: nginx
spec:
  nodeName: node1
  containers:
    - name: nginx
      image: nginx:1.15
"""


def test_get_pods_wide_and_describe_pod_print_kubectl_output(page):
    open_dashboard(page)
    apply_yaml(page, NODENAME_POD)
    pod_chip(page, "node1", "console-pod").wait_for(timeout=TIMEOUT_MS)
    page.wait_for_selector(
        '.node-card[data-node="node1"] .pod[data-pod="default/console-pod"][data-state="Running"]',
        timeout=TIMEOUT_MS,
    )
    output = console(page, "get pods -o wide", expect="console-pod")
    header = output.splitlines()[0]
    assert re.match(
        r"NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$", header
    )
    row = next(line for line in output.splitlines() if line.startswith("console-pod "))
    assert re.match(
        r"console-pod\s+1/1\s+Running\s+0\s+\S+\s+10\.244\.1\.\d+\s+node1\s+<none>\s+<none>$", row
    )

    described = console(page, "describe pod console-pod", expect="Events:")
    assert re.search(r"^Name:\s+console-pod$", described, re.M)
    assert re.search(r"^Node:\s+node1/", described, re.M)
    assert re.search(r"^Status:\s+Running$", described, re.M)
    assert re.search(r"^Events:", described, re.M)


def test_console_completes_names_and_reports_errors_as_kubectl(page):
    open_dashboard(page)
    page.click("#tab-console")
    page.fill("#console-input", "cordon nod")
    page.press("#console-input", "Tab")
    assert page.input_value("#console-input") == "cordon node"
    output = console(page, "get pod nope", expect="NotFound")
    assert output == 'Error from server (NotFound): pods "nope" not found\n'
    assert console(page, "get nodes --show-labels", expect="node2").splitlines()[0].endswith("LABELS")


def test_get_pods_watch_prints_a_row_per_change(page):
    open_dashboard(page)
    console(page, "get pods -w", expect="Watching")
    page.click("#tab-yaml")
    apply_yaml(page, NODENAME_POD.replace("console-pod", "watched-pod"))
    page.click("#tab-console")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#console-out > span.c-out')]"
        ".some((s) => /^watched-pod\\s+1\\/1\\s+Running/.test(s.textContent))",
        timeout=TIMEOUT_MS,
    )
    rows = [
        text
        for text in page.locator("#console-out > span.c-out").all_text_contents()
        if text.startswith("watched-pod ")
    ]
    assert all(not row.startswith("NAME") for row in rows)
    assert len(rows) >= 2  # ContainerCreating (or Pending) first, then Running
    page.press("#console-input", "Control+c")


def test_apply_dash_f_takes_the_yaml_pasted_into_the_console(page):
    open_dashboard(page)
    console(page, "apply -f -", expect="Ctrl+Enter")
    assert page.locator("#console-stdin").is_visible()
    page.fill("#console-stdin", NODENAME_POD.replace("console-pod", "pasted-pod"))
    page.press("#console-stdin", "Control+Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#console-out > span.c-out')]"
        ".some((s) => s.textContent === 'pod/pasted-pod created\\n')",
        timeout=TIMEOUT_MS,
    )
    assert page.locator("#console-input").is_visible()
    pod_chip(page, "node1", "pasted-pod").wait_for(timeout=TIMEOUT_MS)
    page.press("#console-input", "ArrowUp")
    assert page.input_value("#console-input") == "apply -f -"

"""The course notes' commands in their order, typed into the web console and run by the real
kubectl, at pace 0 and in step mode: no trace hangs and every follow-up is explained on the page."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import SCREENSHOTS, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, console, open_dashboard

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
FAILED_SCHEDULING = (
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
    "2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: "
    "3 Preemption is not helpful for scheduling."
)
ADOPTED = (
    "ReplicationController nginx deleted pod-example: it matched selector app=nginx and the controller "
    "already had 3 replicas"
)


def snapshot(base: str) -> dict:
    with urllib.request.urlopen(f"{base}/clusters/demo/snapshot", timeout=10) as response:
        return json.loads(response.read())


def pods(base: str) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in snapshot(base)["pods"]}


def wait_for(condition, page, step_mode: bool, what: str, seconds: float = 30.0) -> None:
    """Wait until `condition()`; in step mode press Next whenever the page offers it."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if step_mode and page.is_enabled("#next-step"):
            # The button may turn disabled between the look and the click.
            with contextlib.suppress(PlaywrightTimeout):
                page.click("#next-step", timeout=1000)
        time.sleep(0.15)


def running_on(base: str, name: str, node: str):
    def check() -> bool:
        pod = pods(base).get(name)
        return bool(pod and pod["spec"].get("nodeName") == node and pod["status"].get("phase") == "Running")

    return check


def unfinished(base: str) -> list[str]:
    return [f"{t['kind']} {t['name']}" for t in snapshot(base)["traces"] if not t["finished_at"]]


class WebConsole:
    def __init__(self, page) -> None:
        self.page = page

    def run(self, command: str, expect: str) -> str:
        return console(self.page, command, expect=expect)


class RealKubectl:
    """kubectl as the teacher: the KUBECONFIG `manage.py kubeconfig` writes (TLS and the token)."""

    def __init__(self, kubeconfig: Path, home: Path) -> None:
        self.kubeconfig = kubeconfig
        self.home = home

    def run(self, command: str, expect: str) -> str:
        args = command.split()[1:] if command.startswith("kubectl ") else command.split()
        env = {**os.environ, "HOME": str(self.home), "KUBECONFIG": str(self.kubeconfig)}
        result = subprocess.run(
            ["kubectl", *args],
            capture_output=True,
            text=True,
            timeout=30,
            env=env,
            cwd=EXAMPLES,
        )
        out = result.stdout + result.stderr
        assert expect in out, f"kubectl {command}: {out}"
        return out


def course(shell, page, base: str, step_mode: bool, label: str) -> None:
    page.click("#tab-console")
    if page.is_checked("#step-mode") != step_mode:
        page.set_checked("#step-mode", step_mode, force=True)
    page.wait_for_function(
        "(on) => document.querySelector('#step-mode').checked === on", arg=step_mode, timeout=TIMEOUT_MS
    )
    shot = 0

    def screenshot(name: str) -> None:
        nonlocal shot
        shot += 1
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"course-{label}-{shot:02d}-{name}.png"))

    assert shell.run("kubectl apply -f rc-nginx.yaml", "replicationcontroller/nginx created")
    wait_for(
        lambda: sum(p["status"].get("phase") == "Running" for p in pods(base).values()) == 3,
        page,
        step_mode,
        "3 Running replicas",
    )
    wait_for(lambda: not unfinished(base), page, step_mode, "the RC's trace to end")

    assert shell.run("kubectl apply -f pod-nodename.yaml", "pod/pod-example created")
    wait_for(lambda: not unfinished(base), page, step_mode, "pod-example's trace to end")
    # At pace 0 the kubelet may start the pod before the RC acts: its trace then ends twice.
    wait_for(
        lambda: (snapshot(base)["traces"][-1]["ending"] or {}).get("outcome") == "deleted",
        page,
        step_mode,
        "the RC's deletion",
    )
    ending = snapshot(base)["traces"][-1]["ending"]
    assert (ending["outcome"], ending["by"], ending["detail"]["en"]) == (
        "deleted",
        "replicationcontroller/nginx",
        ADOPTED,
    )
    assert "pod-example" not in pods(base)
    # The page explains it: the flow's caption shows the ending entry.
    try:
        page.wait_for_function(
            "(text) => document.querySelector('#flow-caption').textContent.includes(text)",
            arg=ADOPTED,
            timeout=TIMEOUT_MS,
        )
    except Exception:
        print("CAPTION", page.locator("#flow-caption").text_content())
        print("CONSOLE", page.locator("#console-out").text_content())
        raise
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#flow-caption").screenshot(path=str(SCREENSHOTS / f"course-{label}-ending-caption.png"))
    if isinstance(shell, WebConsole):
        page.wait_for_function(
            "(text) => [...document.querySelectorAll('#console-out > span')]"
            ".some((s) => s.textContent.includes(text))",
            arg="pod/pod-example created — then deleted by replicationcontroller/nginx: " + ADOPTED,
            timeout=TIMEOUT_MS,
        )
    screenshot("adopted-and-deleted")

    assert shell.run("kubectl delete rc nginx", 'replicationcontroller "nginx" deleted')
    wait_for(lambda: not pods(base), page, step_mode, "the RC's pods to go")
    assert shell.run("kubectl apply -f pod-nodename.yaml", "pod/pod-example created")
    wait_for(running_on(base, "pod-example", "node1"), page, step_mode, "pod-example Running on node1")
    wait_for(lambda: not unfinished(base), page, step_mode, "the pod's trace to end")
    trace = snapshot(base)["traces"][-1]
    assert [s["step"] for s in trace["steps"] if s["skipped"]] == [5, 6, 7, 8, 9, 10, 11]
    assert trace["ending"]["outcome"] == "completed"

    wide = shell.run("kubectl get pods -o wide", "pod-example")
    assert re.search(r"^pod-example\s+1/1\s+Running\s+0\s+\S+\s+10\.244\.1\.\d+\s+node1\s", wide, re.M)
    assert shell.run("kubectl delete pod pod-example", 'pod "pod-example" deleted')
    assert shell.run("kubectl label nodes node1 zz=cxk", "node/node1 labeled")
    assert shell.run("kubectl label nodes node2 cc=cxk", "node/node2 labeled")
    labels = shell.run("kubectl get nodes --show-labels", "zz=cxk")
    assert "cc=cxk" in labels

    assert shell.run("kubectl apply -f pod-nodeselector.yaml", "pod/pod-example created")

    def failed_scheduling() -> bool:
        pod = pods(base).get("pod-example") or {}
        conditions = (pod.get("status") or {}).get("conditions") or []
        return any(c.get("reason") == "Unschedulable" for c in conditions)

    wait_for(failed_scheduling, page, step_mode, "FailedScheduling")
    described = shell.run("kubectl describe pod pod-example", "FailedScheduling")
    assert FAILED_SCHEDULING in described
    # Its own events only: nothing of the earlier pod-example that ran on node1.
    assert not re.search(r"\b(Pulled|Started|Created)\b", described)
    shell.run("kubectl logs pod-example", "pod-example")
    screenshot("failed-scheduling")

    assert shell.run("kubectl label nodes node1 lc=fuheinan", "node/node1 labeled")
    wait_for(running_on(base, "pod-example", "node1"), page, step_mode, "pod-example scheduled to node1")
    wait_for(lambda: not unfinished(base), page, step_mode, "the nodeSelector pod's trace to end")
    assert shell.run("kubectl delete -f pod-nodeselector.yaml", 'pod "pod-example" deleted')
    time.sleep(0.5)
    assert unfinished(base) == []
    screenshot("done")
    # Back to the notes' starting point for the next run.
    shell.run("kubectl label nodes node1 zz- lc-", "node/node1 unlabeled")
    shell.run("kubectl label nodes node2 cc-", "node/node2 unlabeled")


@pytest.fixture
def dashboard(browser, live_server_url):
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.base_url = live_server_url
    sign_in_as_teacher(page, live_server_url)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_dashboard(page)
    yield page
    context.close()
    assert errors == []


@pytest.mark.parametrize("step_mode", [False, True], ids=["pace0", "stepmode"])
def test_the_course_through_the_web_console(dashboard, live_server_url, step_mode):
    course(
        WebConsole(dashboard),
        dashboard,
        live_server_url,
        step_mode,
        f"console-{'step' if step_mode else 'pace0'}",
    )


@pytest.mark.parametrize("step_mode", [False, True], ids=["pace0", "stepmode"])
def test_the_course_through_real_kubectl(dashboard, live_server_url, course_server, step_mode, tmp_path):
    if not shutil.which("kubectl"):
        pytest.skip("kubectl is not installed")
    shell = RealKubectl(course_server.kubeconfig("demo", "teacher"), tmp_path)
    course(shell, dashboard, live_server_url, step_mode, f"kubectl-{'step' if step_mode else 'pace0'}")


def test_the_apply_result_reports_the_follow_up_and_tab_completes_files(dashboard, live_server_url):
    page = dashboard
    if page.is_checked("#step-mode"):  # a step-mode run before this one leaves it on
        page.set_checked("#step-mode", False, force=True)
    rc = (EXAMPLES / "rc-nginx.yaml").read_text()
    pod = (EXAMPLES / "pod-nodename.yaml").read_text()
    page.click("#tab-yaml")
    page.fill("#yaml-text", rc)
    page.click("#yaml-apply")
    page.wait_for_selector("#yaml-result .result-ok", timeout=TIMEOUT_MS)
    wait_for(
        lambda: not unfinished(live_server_url) and len(pods(live_server_url)) == 3, page, False, "the RC"
    )
    page.fill("#yaml-text", pod)
    page.click("#yaml-apply")
    followup = page.locator("#yaml-result .result-followup")
    followup.wait_for(timeout=TIMEOUT_MS)
    assert followup.text_content() == (
        "pod/pod-example created — then deleted by replicationcontroller/nginx: " + ADOPTED
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "course-apply-result-follow-up.png"))
    # Tab completes the working directory's files after -f, and names and kinds elsewhere.
    page.click("#tab-console")
    page.fill("#console-input", "apply -f rc-ng")
    page.press("#console-input", "Tab")
    assert page.input_value("#console-input") == "apply -f rc-nginx.yaml "
    page.fill("#console-input", "describe r")
    page.press("#console-input", "Tab")
    page.fill("#console-input", "describe rc ng")
    page.press("#console-input", "Tab")
    assert page.input_value("#console-input") == "describe rc nginx "
    described = console(page, "describe rc nginx", expect="Pods Status:")
    assert re.search(r"^Replicas:\s+3 current / 3 desired$", described, re.M)
    console(page, "delete rc nginx", expect="deleted")
    wait_for(lambda: not pods(live_server_url), page, False, "the RC's pods to go")

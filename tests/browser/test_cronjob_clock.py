"""The teacher's CronJob action on the page: the chip shows the schedule, its menu jumps the
cluster's clock to the next run, and the run's Job appears at once."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, manage_live
from tests.browser.helpers import TIMEOUT_MS, apply_yaml, console

pytestmark = pytest.mark.browser

CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: report
              image: busybox:1.36
              command: ["echo", "report done"]
"""


def test_the_teacher_runs_the_next_schedule_from_the_cronjobs_menu(page):
    # A cluster of its own: the jump moves its clock only.
    manage_live(
        page.base_url,
        "shell",
        "-c",
        "from cluster.controlplane.demo import create_demo; create_demo('nightly')",
    )
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{page.base_url}/clusters/nightly/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    apply_yaml(page, CRONJOB)
    chip = page.locator(".workload", has_text="nightly")
    chip.wait_for(timeout=TIMEOUT_MS)
    assert chip.locator(".wl-count").text_content() == "0 3 * * *"
    chip.click()
    page.click('.menu-item:text-is("Run the next schedule now (jump the clock)")')
    page.wait_for_selector('.toast:has-text("nightly runs now")', timeout=TIMEOUT_MS)
    page.wait_for_selector('.workload:has-text("nightly-")', timeout=TIMEOUT_MS)  # the run's Job
    # The console runs its command once: ask when the chip says the Job is done.
    page.wait_for_selector('.workload:has-text("nightly-") .wl-count:text-is("1/1")', timeout=TIMEOUT_MS)
    page.screenshot(path=str(SCREENSHOTS / "cronjob-jump-1280x720.png"))
    output = console(page, "get jobs", expect="Complete")
    assert "nightly-" in output
    assert page.problems.errors == []

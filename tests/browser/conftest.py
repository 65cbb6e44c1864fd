"""A live KubeSim (migrate + loaddemo + serve) and Debian's Chromium driven by Playwright.

Without Chromium the browser tests skip with the reason; under CI=true a missing browser fails.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = settings.KUBESIM_CHROMIUM
SCREENSHOTS = REPO / "artifacts" / "screenshots"
PORTS = range(8400, 8500)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 127.0.0.1:8400-8499")


def _wait_until_up(url: str, server: subprocess.Popen, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"the server did not answer {url} within {timeout}s")


def _manage(env: dict, *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, capture_output=True)


# The environment of each live server, by URL: tests that need a fixture object in its database
# (a class session) run a management command against it (`manage_live`).
LIVE_ENVS: dict[str, dict] = {}


def manage_live(url: str, *args: str) -> str:
    found = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=LIVE_ENVS[url],
        check=True,
        capture_output=True,
        text=True,
    )
    return found.stdout


# Package scope: the sync Playwright below keeps an event loop running in the main thread while it
# lives, so it must be gone before later packages' tests call asyncio.run().
@pytest.fixture(scope="package")
def live_server_url(tmp_path_factory) -> Iterator[str]:
    """A fresh database with the demo cluster, served by `manage.py serve` on a free port."""
    if not CHROMIUM.exists():
        _missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    data = tmp_path_factory.mktemp("kubesim")
    env = dict(os.environ, KUBESIM_SQLITE_PATH=str(data / "db.sqlite3"), KUBESIM_PACE_MS="60")
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    # The page as served in production: hashed, gzipped files (kubesim/static.py), collected from
    # this checkout's sources now, so an edited module is never served from an older collection.
    env["KUBESIM_STATIC_ROOT"] = str(data / "static")
    _manage(env, "collectstatic", "--noinput", "-v0")
    _manage(env, "migrate", "--noinput")
    _manage(env, "loaddemo")
    port = free_port()
    log = (data / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    LIVE_ENVS[url] = env
    try:
        _wait_until_up(f"{url}/clusters/demo/", server)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="package")
def browser():
    if not CHROMIUM.exists():
        _missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -r requirements-dev.txt)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


class PageProblems:
    """Console errors and uncaught exceptions seen by a page."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def exception(self, error) -> None:
        self.errors.append(f"pageerror: {error}")


def sign_in_as_teacher(tab, base_url: str) -> None:
    """Open the presenter link (the teacher's credentials, tests/support/auth.py): the session is
    the teacher's."""
    from tests.support.auth import teacher_token

    tab.goto(f"{base_url}/presenter/?token={teacher_token()}")


@pytest.fixture
def page(browser, live_server_url, request):
    """A fresh English page on the demo cluster, signed in as the teacher (the presenter link);
    `page.problems` collects console errors."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    tab = context.new_page()
    sign_in_as_teacher(tab, live_server_url)
    problems = PageProblems()
    tab.on("console", problems.console)
    tab.on("pageerror", problems.exception)
    tab.problems = problems
    tab.base_url = live_server_url
    yield tab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.evaluate("window.scrollTo(0, 0)")  # the sticky top bar belongs at the top of the picture
    tab.screenshot(path=str(SCREENSHOTS / f"{request.node.name}.png"), full_page=True)
    context.close()

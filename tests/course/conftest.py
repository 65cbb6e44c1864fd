"""The course notes' sequence end to end: its own live server (pace 0, the demo cluster), the
dashboard in Chromium, and the real kubectl."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.browser.conftest import _manage, _missing, _wait_until_up, browser, free_port  # noqa: F401


@pytest.fixture(scope="package")
def live_server_url(tmp_path_factory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("course")
    env = dict(os.environ, KUBESIM_SQLITE_PATH=str(data / "db.sqlite3"), KUBESIM_PACE_MS="0")
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    _manage(env, "migrate", "--noinput")
    _manage(env, "loaddemo")
    port = free_port()
    log = (data / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
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

"""A live KubeSim with a staff user, for driving the instructor's tools and a student's panel."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.conftest import _manage, _wait_until_up, browser, free_port  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
TEACHER = ("teacher", "teacher-pw-123")


@pytest.fixture(scope="package")
def labs_server(tmp_path_factory) -> Iterator[dict]:
    data = tmp_path_factory.mktemp("labs")
    env = dict(os.environ, KUBESIM_SQLITE_PATH=str(data / "db.sqlite3"), KUBESIM_PACE_MS="0")
    # The whole class joins from 127.0.0.1, as behind a school's NAT: joins count per browser.
    env["KUBESIM_SHARED_ADDRESSES"] = "127.0.0.1/32"
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    env["KUBESIM_STATIC_ROOT"] = str(data / "static")  # collected now (see tests/browser/conftest.py)
    _manage(env, "collectstatic", "--noinput", "-v0")
    _manage(env, "migrate", "--noinput")
    _manage(env, "loaddemo")
    env_user = dict(env, DJANGO_SUPERUSER_USERNAME=TEACHER[0], DJANGO_SUPERUSER_PASSWORD=TEACHER[1])
    _manage(env_user, "createsuperuser", "--noinput", "--email", "teacher@example.org")
    port = free_port()
    log_path = data / "server.log"
    log = log_path.open("w")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{url}/clusters/demo/", server)
        yield {"url": url, "log": log_path}
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

"""State kept private: the state directory 0700, its files and the database 0600 from their
creation, whatever the umask; a wider one found at start is narrowed (and said so); the database
holds no session key."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from cluster.auth import state
from cluster.auth.sessions import stored_key
from tests.scaleout.support import ROOT, base_env, free_port


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes(root: Path) -> dict[str, int]:
    return {str(path.relative_to(root)): mode(path) for path in [root, *sorted(root.rglob("*"))]}


def run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: os.umask(0o022),  # a common umask: files 0644 unless made private
    )


@pytest.mark.server
def test_make_run_creates_every_state_file_and_the_database_private(tmp_path):
    env = base_env(
        KUBESIM_SQLITE_PATH=str(tmp_path / "db" / "db.sqlite3"), KUBESIM_STATE_DIR=str(tmp_path / "state")
    )
    (tmp_path / "db").mkdir()
    run(env, "migrate", "--noinput", "-v0")
    port, api_port = free_port(), free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--api-port", str(api_port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.umask(0o022),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/clusters/demo/snapshot", timeout=5).read()
                break
            except OSError:
                time.sleep(0.2)
        found = modes(tmp_path / "state")
        databases = {path.name: mode(path) for path in (tmp_path / "db").iterdir()}
    finally:
        server.terminate()
        server.wait(10)
    expected = {
        "secret_key",
        "presenter-token",
        "demo.kubeconfig",
        "pki/ca.key",
        "pki/ca.crt",
        "pki/apiserver.key",
    }
    assert expected <= set(found)
    assert {
        name: value for name, value in found.items() if value != (0o700 if name in (".", "pki") else 0o600)
    } == {}
    assert set(databases) == {"db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"}
    assert set(databases.values()) == {0o600}


def test_a_state_directory_others_could_read_is_narrowed_at_start(tmp_path, settings):
    settings.KUBESIM_STATE_DIR = tmp_path / "state"
    root = state.state_dir()
    (root / "pki").mkdir(mode=0o755)
    for name in ("secret_key", "pki/ca.key"):
        (root / name).write_text("old")
        (root / name).chmod(0o644)
    root.chmod(0o755)
    database = tmp_path / "db.sqlite3"
    database.write_bytes(b"")
    database.chmod(0o644)
    narrowed = state.make_private([database])
    assert len(narrowed) == 5 and all("→" in line for line in narrowed)
    assert {mode(root), mode(root / "pki")} == {0o700}
    assert {mode(root / "secret_key"), mode(root / "pki/ca.key"), mode(database)} == {0o600}
    assert state.make_private([database]) == []


@pytest.mark.django_db
def test_the_database_holds_no_session_key(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser("teacher", password="right-horse-battery")
    browser = Client()
    answer = browser.post("/admin/login/", {"username": "teacher", "password": "right-horse-battery"})
    assert answer.status_code == 302
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    stored = list(Session.objects.values_list("session_key", flat=True))
    assert cookie not in stored and stored == [stored_key(cookie)]
    assert browser.get("/admin/").status_code == 200  # the cookie still signs the browser in
    browser.post("/admin/logout/")
    assert not Session.objects.filter(session_key=stored_key(cookie)).exists()

"""Saving a file into a browser's console working directory, within the server's bounds.

A file belongs to the browser's session (dashboard.models.ConsoleFile) and goes with it. What one
visitor may store is bounded four ways, each refused with a message the console shows:
- per browser: KUBESIM_CONSOLE_FILES_PER_BROWSER files and KUBESIM_CONSOLE_BYTES_PER_BROWSER
  bytes (each file at most 256 KiB); saving under a kept name replaces that file;
- per cluster: KUBESIM_CONSOLE_BYTES_PER_CLUSTER bytes, every browser's files together (a visitor
  who drops the cookie gets a new browser, not more room);
- per minute: KUBESIM_CONSOLE_SAVES_PER_MINUTE saves per browser and per client address (unless
  the address is a NAT the class shares), then 429 with Retry-After;
- the disk: no file while the disk under the state directory or the SQLite database has less
  than KUBESIM_MIN_FREE_DISK_BYTES free (507).
The caps are checked and the file written in one transaction under the cluster's row lock, so
concurrent saves cannot pass a cap together. Expired sessions, and their files with them, are
swept now and then as files are saved (Django deletes expired sessions only when asked).
"""

from __future__ import annotations

import shutil
import threading
import time
from importlib import import_module
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Sum
from django.http import HttpRequest

from cluster.auth.clientaddr import client_address, in_networks
from cluster.auth.ratelimit import RateLimiter
from cluster.auth.sessions import stored_key
from cluster.models import Cluster
from dashboard.console.workdir import check_size, file_name
from dashboard.models import ConsoleFile

SAVES = RateLimiter()
WINDOW = 60.0
SWEEP_EVERY = 600.0  # seconds between sweeps of expired sessions, per process
_swept_at = -SWEEP_EVERY
_sweep_lock = threading.Lock()


class Refused(Exception):
    """A save the bounds refuse: the console's message, the HTTP status, the seconds to wait."""

    def __init__(self, message: str, status: int = 400, retry_after: int = 0) -> None:
        super().__init__(message)
        self.message, self.status, self.retry_after = message, status, retry_after


def amount(size: int) -> str:
    """1048576 -> "1 MiB", 262144 -> "256 KiB" (whole units, as the caps are set)."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def browser_key(request: HttpRequest) -> str:
    """The stored key of the browser's session, made now if it has none yet (a first save)."""
    session = request.session
    session.get("_")  # loads it: a cookie whose session is gone loses its key here
    if session.session_key is None:
        session.save()
    return stored_key(session.session_key)


def watched_paths() -> list[Path]:
    """Where the server writes what grows: the state directory, and SQLite's database file."""
    paths = [Path(settings.KUBESIM_STATE_DIR)]
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3") or "sqlite" in database["ENGINE"]:
        paths.append(Path(database["NAME"]).parent)
    return paths


def free_bytes() -> int:
    """The least free space among the disks under watched_paths()."""
    frees = []
    for path in watched_paths():
        while not path.exists() and path != path.parent:
            path = path.parent
        frees.append(shutil.disk_usage(path).free)
    return min(frees)


def _rate(request: HttpRequest, browser: str) -> None:
    address = client_address(request)
    limit = settings.KUBESIM_CONSOLE_SAVES_PER_MINUTE
    limits = [(("browser", browser), limit)]
    if not in_networks(address, settings.KUBESIM_SHARED_ADDRESSES):
        limits.append((("addr", address), limit))
    wait = SAVES.retry_after_all(limits, WINDOW)
    if wait:
        raise Refused(f"error: too many files saved; try again in {wait} s", 429, wait)


def _check_caps(cluster: Cluster, browser: str, name: str, size: int) -> None:
    others = ConsoleFile.objects.filter(session_id=browser).exclude(name=name)
    mine = others.aggregate(files=Count("id"), size=Sum("size"))
    most = settings.KUBESIM_CONSOLE_FILES_PER_BROWSER
    if mine["files"] >= most:
        raise Refused(f"error: the working directory holds {most} files at most")
    cap = settings.KUBESIM_CONSOLE_BYTES_PER_BROWSER
    if (mine["size"] or 0) + size > cap:
        raise Refused(f'error: "{name}" does not fit: the working directory holds {amount(cap)} at most')
    on_cluster = ConsoleFile.objects.filter(cluster=cluster).exclude(session_id=browser, name=name)
    cap = settings.KUBESIM_CONSOLE_BYTES_PER_CLUSTER
    if (on_cluster.aggregate(size=Sum("size"))["size"] or 0) + size > cap:
        raise Refused(
            f'error: "{name}" does not fit: the files saved on this cluster may take {amount(cap)} in all'
        )


def save(request: HttpRequest, cluster: Cluster, name: str, text: str) -> str:
    """Keep `text` as `name` in the browser's working directory; Refused when a bound says no."""
    name = file_name(name)  # WorkdirError (a Refused's 400 in the view) for a bad name or size
    size = check_size(name, text)
    browser = browser_key(request)
    _rate(request, browser)
    if free_bytes() < settings.KUBESIM_MIN_FREE_DISK_BYTES:
        raise Refused("error: the server's disk is nearly full; no file can be saved now", 507)
    _sweep_expired_sessions()
    with transaction.atomic():
        locked = Cluster.objects.select_for_update().get(pk=cluster.pk)
        _check_caps(locked, browser, name, size)
        ConsoleFile.objects.update_or_create(
            session_id=browser, name=name, defaults={"cluster": locked, "text": text, "size": size}
        )
    return name


def _sweep_expired_sessions() -> None:
    """Delete expired sessions (their files go with them), at most every SWEEP_EVERY seconds."""
    global _swept_at
    now = time.monotonic()
    with _sweep_lock:
        if now - _swept_at < SWEEP_EVERY:
            return
        _swept_at = now
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()


def used_bytes() -> int:
    """Bytes every console file takes (the abuse benchmark prints it)."""
    return ConsoleFile.objects.aggregate(size=Sum("size"))["size"] or 0

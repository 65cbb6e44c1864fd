"""Management commands that need tables but not the user's data (checklab, the benchmarks) run on
a fresh clone too: when the configured database has unapplied migrations they migrate a throwaway
SQLite database of their own and use it; commands that need the real data say what to run."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections
from django.db.migrations.executor import MigrationExecutor

MIGRATE_FIRST = (
    "The database has no KubeSim tables yet (or is behind): run `.venv/bin/python manage.py migrate` "
    "first (`make run` does it for you)."
)


def needs_migrate(alias: str = "default") -> bool:
    connection = connections[alias]
    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def require_migrated() -> None:
    """For commands that work on the user's own data (loaddemo, kubeconfig, controlplane)."""
    if needs_migrate():
        raise CommandError(MIGRATE_FIRST)


@contextlib.contextmanager
def migrated_or_throwaway(stdout=None) -> Iterator[str]:
    """Use the configured database when it is migrated; otherwise a throwaway SQLite file, migrated
    here and removed afterwards. Yields a note saying which one."""
    if not needs_migrate():
        yield "database: the configured one"
        return
    folder = Path(tempfile.mkdtemp(prefix="kubesim-throwaway-"))
    try:
        with sqlite_file(folder / "db.sqlite3"):
            call_command("migrate", verbosity=0, interactive=False)
            note = f"database: a throwaway SQLite database in {folder} (the configured one is not migrated)"
            if stdout is not None:
                stdout.write(note)
            yield note
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def sqlite_file(path: Path) -> Iterator[None]:
    """The default database is the SQLite file `path` (not migrated here) for every thread of the
    process, opened as the embedded default opens it: the writer queue, WAL and the busy timeout
    (without them the control plane's writers and its event flushes fail with "database is
    locked"). The configured database comes back afterwards."""
    settings_dict = connections.settings["default"]
    saved = dict(settings_dict)
    connections["default"].close()
    # New connections (every thread's) read this dict. This thread's wrapper is made anew: the
    # configured one may be another backend's (PostgreSQL's would connect to a database named
    # after the file).
    settings_dict.update(ENGINE="database.sqlite", NAME=str(path), OPTIONS=dict(settings.SQLITE_OPTIONS))
    connections["default"] = connections.create_connection("default")
    try:
        yield
    finally:
        connections["default"].close()
        settings_dict.clear()
        settings_dict.update(saved)
        connections["default"] = connections.create_connection("default")

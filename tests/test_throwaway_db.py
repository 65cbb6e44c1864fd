"""A benchmark on a fresh clone runs on a throwaway database opened as the embedded default opens
its own: the writer queue, IMMEDIATE transactions and WAL (without them the control plane's
writers and its event flushes failed with "database is locked")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.scaleout import support

REPO = Path(__file__).resolve().parent.parent

PROBE = """
from django.db import connection, connections
from database.throwaway_db import migrated_or_throwaway
with migrated_or_throwaway() as note:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        mode = cursor.fetchone()[0]
    options = connection.settings_dict["OPTIONS"]
    engine = type(connections["default"]).__module__
    print(note.split(" in ")[0], connection.vendor, engine, options["transaction_mode"], mode)
"""


def _probe(env: dict) -> str:
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


EXPECTED = "database: a throwaway SQLite database sqlite database.sqlite.base IMMEDIATE wal"


def test_the_throwaway_database_is_the_embedded_defaults_sqlite(tmp_path):
    env = {**os.environ, "KUBESIM_SQLITE_PATH": str(tmp_path / "unmigrated.sqlite3")}
    env.pop("DATABASE_URL", None)
    assert _probe(env) == EXPECTED


def test_an_unmigrated_postgresql_database_gets_the_same_throwaway_sqlite():
    """The configured backend's connection is replaced, not only its settings (PostgreSQL's
    connected to a database named after the SQLite file)."""
    database = support.new_pg_database()
    try:
        assert _probe({**os.environ, "DATABASE_URL": database}) == EXPECTED
    finally:
        support.drop_pg_database(database)

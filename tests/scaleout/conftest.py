"""Fixtures: a scale-out deployment (PostgreSQL + Redis) or an embedded one (SQLite), as processes."""

from __future__ import annotations

import pytest

from tests.scaleout import support


@pytest.fixture
def scaled(tmp_path):
    """Environment and process list for the scale-out profile on a fresh database and Redis DB."""
    database = support.new_pg_database()
    redis = None
    processes = None
    try:
        redis = support.redis_url()
        env = support.base_env(DATABASE_URL=database, REDIS_URL=redis)
        processes = support.Processes(env, logs=tmp_path)
        processes.manage("migrate", "--noinput", "-v0")
        yield processes
    finally:
        if processes is not None:
            processes.stop_all()
        if redis is not None:
            support.flush_redis(redis)
        support.drop_pg_database(database)


@pytest.fixture
def embedded(tmp_path):
    """Environment and process list for the embedded default on a fresh SQLite file."""
    env = support.base_env(KUBESIM_SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    processes = support.Processes(env, logs=tmp_path)
    processes.manage("migrate", "--noinput", "-v0")
    try:
        yield processes
    finally:
        processes.stop_all()

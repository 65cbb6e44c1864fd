"""Fixed statements straight to the backend's own cursor, without Django's cursor plumbing.

The write path, the flow recorder and the hub run a few fixed statements tens of thousands of
times in a burst. Around each one, Django's `connection.cursor()` looked the connection up through
asgiref's Local five times or more, checked the thread and the event loop, and wrapped the cursor
twice: ~19 µs a statement, about a sixth of a 1,000-replica burst's CPU. `cursor()` here looks the
connection up once and uses the cursor the backend creates (on SQLite kubesim/sqlite's, with its
%s → ? conversion and writer gate). The driver's errors become Django's, as Django's cursor makes
them, a statement in a transaction that must roll back is refused as Django refuses it, and a
kept connection is health-checked once per request (CONN_HEALTH_CHECKS) as Django checks it. While
statements are logged or wrapped (DEBUG, tests counting queries), Django's own cursor is used, so
those see every statement.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone


class cursor:
    """`with plainsql.cursor() as c:`, as `with connection.cursor() as c:`."""

    __slots__ = ("_connection", "_cursor", "_django")

    def __enter__(self):
        connection = connections[DEFAULT_DB_ALIAS]
        if _watched(connection):
            self._django = connection.cursor()
            return self._django.__enter__()
        self._django = None
        if connection.health_check_enabled and not connection.health_check_done:
            connection.close_if_health_check_failed()  # once per request, as Django's cursor does
        if connection.connection is None:
            connection.ensure_connection()
        if connection.needs_rollback:
            connection.validate_no_broken_transaction()
        self._connection = connection
        with connection.wrap_database_errors:
            self._cursor = connection.create_cursor()
        return self._cursor

    def __exit__(self, exc_type, exc, traceback):
        if self._django is not None:
            return self._django.__exit__(exc_type, exc, traceback)
        with contextlib.suppress(Exception):  # as Django's cursor: a failed close changes nothing
            self._cursor.close()
        if exc_type is not None:
            # Raises the driver's error as Django's (IntegrityError, OperationalError, ...).
            self._connection.wrap_database_errors.__exit__(exc_type, exc, traceback)
        return False


def later(query: str, params: list, table: str, key: object = None) -> None:
    """Run an append (an INSERT, or an UPDATE whose last value is all that counts: `key` names
    what it updates) that nothing needs before the next statement naming `table`. Inside a
    control plane's batch on SQLite it waits for then (database/sqlite/deferred.py); elsewhere,
    and while statements are logged or wrapped, it runs now."""
    if not _deferred(query, [params], table, key):
        with cursor() as c:
            c.execute(query, params)


def later_many(query: str, param_list: list[list], table: str) -> None:
    """`later` for several rows of one INSERT."""
    if not _deferred(query, param_list, table):
        with cursor() as c:
            c.executemany(query, param_list)


def _deferred(query: str, param_list: list[list], table: str, key: object = None) -> bool:
    connection = connections[DEFAULT_DB_ALIAS]
    defer = getattr(connection, "defer", None)
    return defer is not None and not _watched(connection) and defer(query, param_list, table, key)


def _watched(connection) -> bool:
    """Statements are logged or wrapped (DEBUG, tests counting queries): Django's own cursor must
    see each one, when it is made."""
    return bool(connection.force_debug_cursor or _debug() or connection.execute_wrappers)


@cache
def _debug() -> bool:
    """settings.DEBUG (Django's `queries_logged` reads it through the lazy settings object, ~1 µs
    a statement); read again after override_settings changes it."""
    return settings.DEBUG


def _forget_debug(*, setting: str, **kwargs) -> None:
    if setting == "DEBUG":
        _debug.cache_clear()


setting_changed.connect(_forget_debug)


@cache
def vendor() -> str:
    """The default database's vendor ("sqlite", "postgresql"): settings, fixed for the process."""
    return connections[DEFAULT_DB_ALIAS].vendor


@cache
def _binds_utc_text() -> bool:
    """The default database is SQLite keeping times in UTC: it binds an aware time as its naive
    UTC text (`adapt_datetimefield_value`). Settings, fixed for the process."""
    connection = connections[DEFAULT_DB_ALIAS]
    return connection.vendor == "sqlite" and settings.USE_TZ and connection.timezone_name == "UTC"


def now() -> tuple[datetime, object]:
    """(timezone.now(), and that time as bound for a DateTimeField column): on SQLite in UTC the
    text `adapt_datetimefield_value` makes, without its connection lookup and settings reads;
    elsewhere the backend's own adaptation."""
    moment = timezone.now()
    if _binds_utc_text():
        return moment, str(moment.replace(tzinfo=None))
    return moment, connections[DEFAULT_DB_ALIAS].ops.adapt_datetimefield_value(moment)

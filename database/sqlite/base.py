"""Django's SQLite backend, whose transactions queue at the process's writer gate first."""

from __future__ import annotations

import contextlib
import os
from functools import lru_cache

from django.db.backends.sqlite3 import base

from database.sqlite import writers
from database.sqlite.deferred import Deferred


@lru_cache(maxsize=4096)
def _qmark(query: str) -> str:
    return base.FORMAT_QMARK_REGEX.sub("?", query).replace("%%", "%")


@lru_cache(maxsize=4096)
def _writes(query: str) -> bool:
    return query.lstrip()[:7].upper().startswith(("INSERT", "UPDATE", "DELETE", "REPLACE"))


class CursorWrapper(base.SQLiteCursorWrapper):
    """Django's cursor, with each statement's %s → ? conversion done once per distinct text, and
    a write outside a transaction queued at the writer gate like a transaction.

    Django runs a regular expression over every statement it executes (~4 µs for an insert); the
    API server runs the same few texts tens of thousands of times in a burst.

    A `save()` or `update()` outside `atomic()` runs in SQLite's autocommit: the statement takes
    the write lock itself, past the gate, and a gated transaction starting meanwhile met SQLite's
    busy handler (sleeps of 1 … 100 ms) instead of a turn at the gate."""

    owner: DatabaseWrapper

    def execute(self, query, params=None):
        if self.owner.deferred.needed_by(query):
            self.owner.send_deferred()
        if self.connection.in_transaction or not _writes(query):
            return super().execute(query, params)
        with writers.one_statement():
            return super().execute(query, params)

    def executemany(self, query, param_list):
        if self.owner.deferred.needed_by(query):
            self.owner.send_deferred()
        if self.connection.in_transaction or not _writes(query):
            return super().executemany(query, param_list)
        with writers.one_statement():
            return super().executemany(query, param_list)

    def convert_query(self, query, *, param_names=None):
        if param_names is None:
            return _qmark(query)
        return super().convert_query(query, param_names=param_names)


class DatabaseWrapper(base.DatabaseWrapper):
    gate_held = False
    memo: dict | None = None  # a batch's kept reads (database/sqlite/memo.py), None outside one

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.open_savepoints: list[tuple[str, str]] = []  # outermost first: (Django's id, SQLite's name)
        self.deferred = Deferred()  # a batch's appends waiting (database/sqlite/deferred.py)

    def _forget_kept(self) -> None:
        if self.memo:
            self.memo.clear()

    def _transaction_over(self) -> None:
        """Commit, rollback or close: nothing kept, nothing waiting, no savepoint open."""
        self._forget_kept()
        self.deferred.clear()
        self.open_savepoints.clear()

    def get_new_connection(self, conn_params):
        # The database holds sessions and every cluster: nobody else on the machine may read it.
        # Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
        name = str(conn_params["database"])
        if not self.is_in_memory_db() and not name.startswith("file:"):
            with contextlib.suppress(FileExistsError):
                os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return super().get_new_connection(conn_params)

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=CursorWrapper)
        cursor.owner = self
        return cursor

    def defer(self, query: str, param_list: list[list], table: str, key: object = None) -> bool:
        """Keep the rows of an append of a batch transaction for later
        (database/sqlite/deferred.py); False outside a batch, where the caller runs it at once."""
        if self.memo is None or not self.in_atomic_block or self.needs_rollback:
            return False
        for params in param_list:
            self.deferred.add(query, params, table, key)
        return True

    def send_deferred(self) -> None:
        runs = self.deferred.take()
        cursor = self.create_cursor()
        try:
            for query, param_list in runs:
                if len(param_list) == 1:
                    cursor.execute(query, param_list[0])
                else:
                    cursor.executemany(query, param_list)
        finally:
            cursor.close()

    def _start_transaction_under_autocommit(self):
        self._forget_kept()
        self.gate_held = writers.GATE.acquire(writers.turn())
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_gate()
            raise

    def _release_gate(self) -> None:
        if self.gate_held:
            self.gate_held = False
            writers.GATE.release()

    def _commit(self):
        if self.deferred.waiting():
            self.send_deferred()
        self._transaction_over()
        try:
            return super()._commit()
        finally:
            self._release_gate()

    def _rollback(self):
        self._transaction_over()
        try:
            return super()._rollback()
        finally:
            self._release_gate()

    # Savepoints are named by depth (k1, k2, …) rather than by Django's ids, which are new on
    # every call: SQLite prepares a statement per distinct text and its driver keeps the last 128,
    # so a batch of 64 API writes (4–5 savepoints each) pushed the API server's own statements
    # out of that cache and each one was prepared again. Django still tracks its own ids
    # (on_commit callbacks of a rolled-back savepoint are dropped by id).
    def _savepoint(self, sid):
        name = f"k{len(self.open_savepoints) + 1}"
        super()._savepoint(name)
        self.open_savepoints.append((sid, name))
        self.deferred.savepoint()

    def _savepoint_rollback(self, sid):
        self._forget_kept()  # the writes it undoes may have updated what was kept
        at = self._depth_of(sid)
        super()._savepoint_rollback(self.open_savepoints[at][1])
        self.deferred.rolled_back(at)
        del self.open_savepoints[at + 1 :]  # ROLLBACK TO keeps the savepoint, ends those inside it

    def _savepoint_commit(self, sid):
        at = self._depth_of(sid)
        super()._savepoint_commit(self.open_savepoints[at][1])
        self.deferred.released(at)
        del self.open_savepoints[at:]  # RELEASE ends it and every savepoint inside it

    def _depth_of(self, sid) -> int:
        for at in range(len(self.open_savepoints) - 1, -1, -1):
            if self.open_savepoints[at][0] == sid:
                return at
        raise self.Database.OperationalError(f"no such savepoint: {sid}")

    def _close(self):
        self._transaction_over()
        try:
            return super()._close()
        finally:
            self._release_gate()

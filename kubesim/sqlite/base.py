"""Django's SQLite backend, whose transactions queue at the process's writer gate first."""

from __future__ import annotations

from django.db.backends.sqlite3 import base

from kubesim.sqlite import writers


class DatabaseWrapper(base.DatabaseWrapper):
    gate_held = False

    def _start_transaction_under_autocommit(self):
        self.gate_held = writers.GATE.acquire(writers.is_urgent())
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
        try:
            return super()._commit()
        finally:
            self._release_gate()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._release_gate()

    def _close(self):
        try:
            return super()._close()
        finally:
            self._release_gate()

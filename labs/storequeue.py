"""The lab grader's outcomes, stored together: what queued while one transaction waited for
SQLite's one writer goes into the next one.

Sixty students acting at once left sixty outcome transactions queued at the writer gate, each
holding it for a few statements plus its BEGIN and COMMIT, and each of those waiting for the GIL
again; the gate was busy most of a lesson. Here one thread at a time drains the queue and writes
everything in it in one transaction. An outcome's own writes keep their savepoint
(`labs.outcome.store`), so one that lost its race, or failed, leaves the others stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Generic, TypeVar

from django.db import close_old_connections

from database.sqlite import writers

T = TypeVar("T")
R = TypeVar("R")


class StoreQueue(Generic[T, R]):
    def __init__(self, executor: Executor, store_one: Callable[[T], R]) -> None:
        self._executor = executor
        self._store_one = store_one
        self._lock = threading.Lock()
        self._items: list[tuple[T, bool, asyncio.Future, asyncio.AbstractEventLoop]] = []
        self._draining = False

    async def put(self, item: T, urgent: bool) -> R:
        """Store `item` (after the requests but before the control planes' writes when `urgent`:
        a person's outcome) with whatever else is queued; store_one's result, or its exception."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            self._items.append((item, urgent, future, loop))
            start, self._draining = not self._draining, True
        if start:
            self._executor.submit(self._drain)
        return await future

    def _drain(self) -> None:
        close_old_connections()
        try:
            while True:
                with self._lock:
                    batch, self._items = self._items, []
                    if not batch:
                        self._draining = False
                        return
                results = self._write(batch)
                if len(results) < len(batch):
                    with self._lock:  # cut short for a request: first in the next transaction
                        self._items[:0] = batch[len(results) :]
                for (_, _, future, loop), (ok, value) in zip(batch, results, strict=False):
                    _tell(loop, future, ok, value)
        except BaseException:
            with self._lock:  # the next put drains what is left
                self._draining = False
            raise
        finally:
            close_old_connections()

    def _write(self, batch: list) -> list[tuple[bool, object]]:
        """Store the batch's items in order in one transaction; their results. Like a control
        plane's batch (writers.write_in_turns), it ends early (after one item at least) when a
        request queues for the writer gate: a student's write then waits for one outcome, not for
        twenty (35-55 ms held with sixty students)."""
        results: list[tuple[bool, object]] = []

        def store(entry: tuple) -> None:
            try:
                results.append((True, self._store_one(entry[0])))
            except Exception as exc:  # its savepoint was rolled back: the others go on
                results.append((False, exc))

        # Behind the requests: the person already saw the outcome (labs/grader.py), and a student
        # waiting on the wire for a write waited for every outcome queued before it.
        turn = writers.PERSON if any(item_urgent for _, item_urgent, _, _ in batch) else writers.BACKGROUND
        try:
            with writers.turn_of(turn):
                writers.write_in_turns(batch, store)
        except Exception as exc:  # the transaction itself failed: nothing was stored
            return [(False, exc)] * len(batch)
        return results


def _tell(loop: asyncio.AbstractEventLoop, future: asyncio.Future, ok: bool, value: object) -> None:
    # RuntimeError: its event loop has closed, and nobody waits for the result any more.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(_settle, future, ok, value)


def _settle(future: asyncio.Future, ok: bool, value: object) -> None:
    if future.done():  # the waiter was cancelled
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)  # type: ignore[arg-type]

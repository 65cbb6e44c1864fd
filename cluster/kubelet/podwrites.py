"""The pod workers' writes, gathered: one trip to the database thread and one transaction for
every pod worker that reached a write in the same turn of the event loop.

A scale-up's pods reach each stage together (the scheduler binds them in batches, one informer
sync hands them to their workers): step 12 with ContainerCreating, the node's image list after
the first pull on a node, the started containers' status (step 13). Written one by one, each
waited its own turn on the database thread and paid its own commit, and a student's request
queued behind every one of them for the writer gate. Each write still is its own API write (its
own revision, watch event and steps, in a savepoint of its own); only the trip and the commit are
shared. With a pace the workers arrive one at a time and each batch holds one write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from cluster.client.informer import db
from database.sqlite import writers

MAX_BATCH = 64

Write = tuple[Callable[..., None], tuple]


class PodWrites:
    def __init__(self) -> None:
        self.pending: list[tuple[Write, asyncio.Future]] = []
        self.task: asyncio.Task | None = None

    async def write(self, write_one: Callable[..., None], *args) -> None:
        """Run write_one(*args) in the database thread, in one transaction with the other writes
        of this turn; returns once committed."""
        future = asyncio.get_running_loop().create_future()
        self.pending.append(((write_one, args), future))
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # the other workers of this turn add their writes first
        while self.pending:
            batch, self.pending = self.pending[:MAX_BATCH], self.pending[MAX_BATCH:]
            try:
                written = await db(_write_some)([write for write, _ in batch])
            except Exception as error:  # each waiting worker gets it, as if it wrote alone
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for _, future in batch[:written]:
                if not future.done():
                    future.set_result(None)
            self.pending[:0] = batch[written:]  # cut short for a request: first in the next one


def _write_some(items: list[Write]) -> int:
    """Run the writes in order in one transaction; how many. It ends early (after one at least)
    when a request queues for the writer gate (writers.write_in_turns)."""
    return writers.write_in_turns(items, lambda item: item[0](*item[1]))


class Together:
    """Calls into the database thread that workers reach in the same turn of the event loop,
    made in one trip (no transaction: each call is its own), in order."""

    def __init__(self) -> None:
        self.pending: list[tuple[Write, asyncio.Future]] = []
        self.task: asyncio.Task | None = None

    async def call(self, call_one: Callable[..., None], *args) -> None:
        future = asyncio.get_running_loop().create_future()
        self.pending.append(((call_one, args), future))
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        await asyncio.sleep(0)
        while self.pending:
            batch, self.pending = self.pending, []
            outcomes = await db(_call_each)([call for call, _ in batch])
            for (_, future), error in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)


def _call_each(calls: list[Write]) -> list[Exception | None]:
    outcomes: list[Exception | None] = []
    for call_one, args in calls:
        try:
            call_one(*args)
            outcomes.append(None)
        except Exception as error:  # the worker that asked gets it
            outcomes.append(error)
    return outcomes

"""The kubelets' status reports, gathered: one trip to the database thread and one transaction
for every pod worker that reached its report in the same turn of the event loop.

At pace 0 a scale-up's pods reach step 13 together (the scheduler binds them in batches); written
one by one, each report waited its own turn on the database thread and paid its own commit. Each
report still is its own API write (its own revision, watch event and step 13, in a savepoint of
its own); only the trip and the commit are shared. With a pace the workers arrive one at a time
and each batch holds one report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from cluster.informer import db
from kubesim.sqlite import writers

MAX_BATCH = 64


class StatusWriter:
    def __init__(self, write_one: Callable[..., None]) -> None:
        self.write_one = write_one  # runs in the database thread, inside the batch's transaction
        self.pending: list[tuple[tuple, asyncio.Future]] = []
        self.task: asyncio.Task | None = None

    async def write(self, *args) -> None:
        """Write one report (write_one(*args)) with the others of this turn; returns once committed."""
        future = asyncio.get_running_loop().create_future()
        self.pending.append((args, future))
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # the other workers of this turn add their reports first
        while self.pending:
            batch, self.pending = self.pending[:MAX_BATCH], self.pending[MAX_BATCH:]
            try:
                written = await db(self._write_some)([args for args, _ in batch])
            except Exception as error:  # each waiting worker gets it, as if it wrote alone
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for _, future in batch[:written]:
                if not future.done():
                    future.set_result(None)
            self.pending[:0] = batch[written:]  # cut short for a request: first in the next one

    def _write_some(self, items: list[tuple]) -> int:
        """Write the reports in order in one transaction; how many. It ends early (after one at
        least) when a request queues for the writer gate (writers.write_in_turns)."""
        return writers.write_in_turns(items, lambda args: self.write_one(*args))

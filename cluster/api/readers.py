"""The threads that streaming responses (watches, `logs -f`) read the database on.

A few kept threads with a connection each, shared by every stream: five hundred watches polling
the log never open more connections than READER_THREADS, and the connections stay for the next
stream rather than being opened and left behind by the event loop's default executor.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor

READER_THREADS = 4
READERS = ThreadPoolExecutor(max_workers=READER_THREADS, thread_name_prefix="stream-reader")


def reading(function):
    """`function` (read-only) as a coroutine function run on the stream readers.

    A plain executor future (not asgiref's sync_to_async, which waits for a running call before
    it lets a cancellation through): a client that goes away ends its stream at once.
    """

    @functools.wraps(function)
    async def read(*args):
        return await asyncio.get_running_loop().run_in_executor(READERS, function, *args)

    return read

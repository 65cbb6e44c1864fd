"""Django's ASGI handler, tuned for a busy event loop: one hop to a kept thread per request.

Django's own ASGI handler runs an async middleware chain: each synchronous middleware (all of
Django's: sessions, CSRF, locale, auth, messages...) is adapted with sync_to_async, so a request
goes back and forth between the event loop and a thread about twenty times, and every trip waits
its turn on a loop that also carries the control plane and hundreds of websockets. It also starts
a new thread for every request (its thread-sensitive context), opens a new database connection
in it, and joins the thread afterwards. Here, as under WSGI, the synchronous chain does the same
work in one trip, on one of a pool of kept threads whose connections stay open (CONN_MAX_AGE).

Views are synchronous; a watch or `logs -f` returns a response whose async iterator Django
streams from the event loop. Its thread goes back to the pool as soon as the view has returned
(what little thread-sensitive work the end of a stream needs runs on one shared closing thread),
so five hundred watches need no more threads than five hundred quick requests. At most
MAX_REQUEST_THREADS requests are in their thread at once (others wait their turn on the loop), so
a burst never opens more database connections than that; a thread the pool does not keep closes
its connections before it ends, so none are left behind.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import connections

from cluster.controlplane import turns
from database.sqlite import writers

# Idle request threads kept with their database connections. A PostgreSQL connection is a server
# process: one opened for a request and closed after it costs more than the write itself (a fifth
# of sixty students' writes through two servers opened one with 8 kept). 16 was tried and is back to
# 8: with it, serve's Ctrl-C stop in tests/robustness/test_stop.py hung in the full suite (not explained yet).
IDLE_THREADS_KEPT = 8
MAX_REQUEST_THREADS = 32


def close_connections() -> None:
    """Close this thread's database connections (never one inside a transaction, as under tests)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


class ThreadPool:
    """Single-thread executors lent to one request at a time (a request's thread-sensitive work
    must all run on one thread: its database connection and transaction live there)."""

    def __init__(self, keep: int = IDLE_THREADS_KEPT, most: int = MAX_REQUEST_THREADS) -> None:
        self.keep = keep
        self.most = most
        self.idle: list[ThreadPoolExecutor] = []
        self.lock = threading.Lock()
        self.made = 0
        self.slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop -> Semaphore

    def _slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self.slots:
            self.slots[loop] = asyncio.Semaphore(self.most)
        return self.slots[loop]

    async def take(self) -> ThreadPoolExecutor:
        await self._slots().acquire()
        with self.lock:
            if self.idle:
                return self.idle.pop()
            self.made += 1
            number = self.made
        # A request's SQLite writes go before the control planes' (database/sqlite/writers.py).
        return ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=f"request-{number}", initializer=writers.mark_urgent
        )

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        self._slots().release()
        with self.lock:
            if len(self.idle) < self.keep:
                self.idle.append(executor)
                return
        # Django's connections belong to their thread: close them there, or they outlive it.
        executor.submit(close_connections)
        executor.shutdown(wait=False)


class Lent:
    """One request's executor, given back once: when the request ends, or as its stream begins."""

    def __init__(self, pool: ThreadPool, executor: ThreadPoolExecutor) -> None:
        self.pool, self.executor, self.returned = pool, executor, False
        turns.request_started()  # the control planes' next database calls wait for it

    def give_back(self) -> None:
        if not self.returned:
            self.returned = True
            turns.request_ended()
            self.pool.give_back(self.executor)


_lent: contextvars.ContextVar[Lent] = contextvars.ContextVar("kubesim_lent_thread")
# The end of a stream (response.close(), request_finished) is thread-sensitive: it runs here.
_closing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stream-closer")


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.threads = ThreadPool()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        lent = Lent(self.threads, await self.threads.take())
        token = _lent.set(lent)
        try:
            async with ThreadSensitiveContext(executor=lent.executor):
                await self.handle(scope, receive, send)
        finally:
            _lent.reset(token)
            lent.give_back()

    async def get_response_async(self, request):
        response = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        if response.streaming:
            self._release_thread()
        return response

    @staticmethod
    def _release_thread() -> None:
        """A stream runs on the loop for as long as it lasts: its thread goes back to the pool now,
        and this request's remaining thread-sensitive calls go to the shared closing thread."""
        lent = _lent.get(None)
        context = SyncToAsync.thread_sensitive_context.get(None)
        if lent is None or context is None:
            return
        SyncToAsync.context_to_thread_executor[context] = _closing
        lent.give_back()

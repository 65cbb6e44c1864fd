"""Django's ASGI handler, tuned for a busy event loop: one hop to a kept thread per request.

Django's own ASGI handler runs an async middleware chain: each synchronous middleware (all of
Django's: sessions, CSRF, locale, auth, messages...) is adapted with sync_to_async, so a request
goes back and forth between the event loop and a thread about twenty times, and every trip waits
its turn on a loop that also carries the control plane and hundreds of websockets. It also starts
a new thread for every request (its thread-sensitive context), opens a new database connection
in it, and joins the thread afterwards. Here, as under WSGI, the synchronous chain does the same
work in one trip, on one of a pool of kept threads whose connections stay open (CONN_MAX_AGE).

Views are synchronous; a watch or `logs -f` returns a response whose async iterator Django
streams from the event loop (its thread stays taken until the stream ends; the pool grows). Such a
thread's database connection is closed as soon as the view returns, and a thread the pool does
not keep closes its connections before it ends: five hundred watches hold no database files, and
none are left behind once they close.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import connections

IDLE_THREADS_KEPT = 8


def close_connections() -> None:
    """Close this thread's database connections (never one inside a transaction, as under tests)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


class ThreadPool:
    """Single-thread executors lent to one request at a time (a request's thread-sensitive work
    must all run on one thread: its database connection and transaction live there)."""

    def __init__(self, keep: int = IDLE_THREADS_KEPT) -> None:
        self.keep = keep
        self.idle: list[ThreadPoolExecutor] = []
        self.lock = threading.Lock()
        self.made = 0

    def take(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.idle:
                return self.idle.pop()
            self.made += 1
            number = self.made
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{number}")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        with self.lock:
            if len(self.idle) < self.keep:
                self.idle.append(executor)
                return
        # Django's connections belong to their thread: close them there, or they outlive it.
        executor.submit(close_connections)
        executor.shutdown(wait=False)


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.threads = ThreadPool()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.threads.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.threads.give_back(executor)

    async def get_response_async(self, request):
        return await sync_to_async(self._respond_in_thread, thread_sensitive=True)(request)

    def _respond_in_thread(self, request):
        response = self.get_response(request)
        if response.streaming:
            close_connections()  # the stream may last hours; it reads on threads of its own
        return response

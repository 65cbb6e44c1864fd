"""Websockets whose database work stays off the control planes' thread.

Channels runs two things on asgiref's one thread-sensitive executor, the thread that in `serve`
also carries every control plane's database work (cluster/client/informer.py `db`): the session's user
lookup at connect (`channels.auth.get_user`) and, before every message a consumer handles,
`close_old_connections`. With sixty busy sandboxes that queue is seconds long: a lab panel's
socket was dropped by Daphne before its connect was accepted (5 s), and each check result waited
its turn to be sent. Here the user is looked up on a thread of its own, and the consumers that do
their database work through `database_sync_to_async(thread_sensitive=False)` (which closes stale
connections around each call itself) skip the per-message hop.
"""

from __future__ import annotations

from channels.auth import AuthMiddleware, get_user
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware

_get_user = database_sync_to_async(get_user.func, thread_sensitive=False)


class OffThreadAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope):
        scope["user"]._wrapped = await _get_user(scope)


def auth_middleware_stack(inner):
    """Channels' AuthMiddlewareStack, with the user looked up off the shared thread."""
    return CookieMiddleware(SessionMiddleware(OffThreadAuthMiddleware(inner)))


class NoConnectionHop:
    """A consumer mixin: dispatch without `close_old_connections` on the shared thread first."""

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

"""Browser websockets must come from the page KubeSim served: same scheme, host and port.

A browser always sends Origin; a page at another origin (another port counts) is refused before
the consumer runs. A socket with no Origin is not a browser's (kubectl's own websockets): it is let
through, and cluster.auth.access authenticates it by its bearer token only, never by a cookie.
"""

from __future__ import annotations

from django.conf import settings
from django.http.request import validate_host


def expected_origin(scope: dict, host: str) -> str:
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    return f"{scheme}://{host}"


def origin_allowed(scope: dict) -> bool:
    headers = {k.lower(): v for k, v in scope.get("headers", [])}
    origin = headers.get(b"origin")
    if origin is None:
        return True
    host = headers.get(b"host", b"").decode("latin-1")
    if not host or not validate_host(host.rsplit(":", 1)[0].strip("[]"), settings.ALLOWED_HOSTS):
        return False
    origin_text = origin.decode("latin-1")
    return origin_text == expected_origin(scope, host) or origin_text in settings.CSRF_TRUSTED_ORIGINS


class SameOriginValidator:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            from channels.security.websocket import WebsocketDenier

            denier = WebsocketDenier()
            return await denier(scope, receive, send)
        return await self.app(scope, receive, send)

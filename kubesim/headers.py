"""Security headers on every HTTP response, static files and API answers included.

An ASGI wrapper rather than Django middleware, because the static files handler answers before
Django's middleware runs. The Content-Security-Policy allows no inline script: the pages load ES
modules from /static/ and read their boot data from a JSON block.
"""

from __future__ import annotations


def content_security_policy(host: str) -> str:
    sockets = f" ws://{host} wss://{host}" if host else ""
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        f"connect-src 'self'{sockets}; object-src 'none'; base-uri 'self'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


def _safe_host(host: str) -> str:
    return host if host and all(c.isalnum() or c in ".-:[]" for c in host) else ""


class SecurityHeaders:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _safe_host(dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1"))
        extra = [
            (b"content-security-policy", content_security_policy(host).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin"),
            (b"cross-origin-resource-policy", b"same-origin"),
        ]

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                headers = [*message.get("headers", []), *(h for h in extra if h[0] not in present)]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

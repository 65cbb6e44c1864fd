"""The teacher's credentials, for every test that writes: ONE helper.

The teacher is whoever holds the presenter token (the state directory's `presenter-token`, which
`make run` prints as a link); servers started by the tests share the state directory, so the same
token works in-process (Django's test client) and against a live server (HTTP, websockets,
kubectl). In a test, take the `teacher_client` / `teacher_headers` fixtures (tests/conftest.py),
or call these directly.
"""

from __future__ import annotations

from django.test import AsyncClient, Client


def teacher_token() -> str:
    from cluster.auth.access import presenter_token

    return presenter_token()


def teacher_headers() -> dict[str, str]:
    """`Authorization: Bearer <presenter token>`: writes need no CSRF token with it."""
    return {"Authorization": f"Bearer {teacher_token()}"}


def teacher_client(**kwargs) -> Client:
    """Django's test client, sending the teacher's bearer token on every request."""
    return Client(headers=teacher_headers(), **kwargs)


def teacher_async_client(**kwargs) -> AsyncClient:
    return AsyncClient(headers=teacher_headers(), **kwargs)


def teacher_ws_headers() -> list[tuple[bytes, bytes]]:
    """ASGI headers for a websocket test (no Origin: authenticated by the token alone)."""
    return [(b"authorization", f"Bearer {teacher_token()}".encode())]

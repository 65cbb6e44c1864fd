"""The servers of the Kubernetes e2e image agnhost, whose first argument picks one
(test/images/agnhost): what the docs' probe examples and the e2e-style course labs run.

- `liveness`: on 8080, `/healthz` answers 200 `ok` for the first 10 seconds after the container
  started, then 500 `error: <seconds>` (the docs' HTTP liveness example); `/started` the uptime.
- `netexec [--http-port=8080]`: `/` answers `NOW: <time>`, `/hostname` the pod's name,
  `/echo?msg=x` the message, `/healthz` 200.
- `serve-hostname [--port=9376]`: every path answers the pod's name.

Other subcommands run no server here.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import parse_qs

from cluster.shell.web import Response
from k8s import clock

DEFAULT_PORTS = {"liveness": 8080, "netexec": 8080, "serve-hostname": 9376}
_PORT_FLAGS = {"netexec": "--http-port", "serve-hostname": "--port"}
LIVENESS_HEALTHY_SECONDS = 10


def server(args: list[str]) -> tuple[str, int] | None:
    """(subcommand, port) of the server an agnhost container's arguments start, or None."""
    if not args or args[0] not in DEFAULT_PORTS:
        return None
    sub, port = args[0], DEFAULT_PORTS[args[0]]
    flag = _PORT_FLAGS.get(sub)
    for i, arg in enumerate(args[1:], 1):
        value = None
        if flag and arg.startswith(flag + "="):
            value = arg.split("=", 1)[1]
        elif flag and arg == flag and i + 1 < len(args):
            value = args[i + 1]
        if value is not None and value.isdigit():
            port = int(value)
    return sub, port


def server_of(family: str, argv: list[str]) -> tuple[str, int] | None:
    """The server of a container of an image `family` run with `argv` (its command and args)."""
    if family != "agnhost":
        return None
    argv = [str(word) for word in argv]
    if argv and argv[0].rsplit("/", 1)[-1] == "agnhost":
        argv = argv[1:]
    return server(argv)


def _uptime(started_at: str) -> float:
    try:
        started = datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, (clock.now() - started).total_seconds())


def _text(status: int, body: str) -> Response:
    reason = {200: "OK", 404: "Not Found", 500: "Internal Server Error"}.get(status, "")
    headers = [
        ("Date", clock.now().strftime("%a, %d %b %Y %H:%M:%S GMT")),
        ("Content-Length", str(len(body.encode()))),
        ("Content-Type", "text/plain; charset=utf-8"),
    ]
    return Response(status, reason, headers, body)


def serve(sub: str, path: str, hostname: str, started_at: str) -> Response:
    """One request to the container's agnhost server."""
    route, _, query = path.partition("?")
    if sub == "serve-hostname":
        return _text(200, hostname)
    if sub == "liveness":
        uptime = _uptime(started_at)
        if route == "/healthz":
            if uptime > LIVENESS_HEALTHY_SECONDS:
                return _text(500, f"error: {uptime:g}")
            return _text(200, "ok")
        if route == "/started":
            return _text(200, f"{uptime:g}s")
        return _text(404, "404 page not found\n")
    # netexec
    if route in ("", "/"):
        return _text(200, f"NOW: {clock.now().strftime('%Y-%m-%d %H:%M:%S.%f')} +0000 UTC")
    if route == "/hostname":
        return _text(200, hostname)
    if route == "/echo":
        return _text(200, (parse_qs(query).get("msg") or [""])[0])
    if route == "/healthz":
        return _text(200, "")
    return _text(404, "404 page not found\n")

"""One TCP connection to a pod's HTTP server, carried by a port-forward data stream.

Bytes from the client are parsed as HTTP/1.1 requests (keep-alive, pipelining, a body by
Content-Length); each complete request is answered by the simulated server and logged as that
server logs it (nginx's `main` access log format on its stdout, httpd's `common`). What a real
server refuses it refuses here: a malformed request line gets 400 and the connection closes, a body
over nginx's client_max_body_size (1 MiB) gets 413.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from cluster.api.portforward.upstream import Server
from cluster.shell import web
from cluster.shell.web import Response
from k8s import clock

MAX_HEAD = 8 << 10  # nginx's large_client_header_buffers: 8 KiB
MAX_BODY = 1 << 20  # nginx's client_max_body_size
REQUESTS_PER_CONNECTION = 1000  # nginx's keepalive_requests
_REASONS = {400: "Bad Request", 413: "Request Entity Too Large"}


class HttpConnection:
    def __init__(self, server: Server, peer: str = "127.0.0.1") -> None:
        self.server = server
        self.peer = peer  # the runtime dials localhost inside the pod's network namespace
        self.buffer = bytearray()
        self.closed = False  # the server closed its side: nothing more is read or written
        self.served = 0
        self.active_at = time.monotonic()

    def feed(self, data: bytes) -> bytes:
        """The server's answer to the bytes received so far (possibly several responses)."""
        if self.closed:
            return b""
        self.active_at = time.monotonic()
        if self.server.respond is None:  # a server whose protocol is not simulated hangs up
            self.closed = True
            return b""
        self.buffer += data
        out = b""
        while not self.closed:
            answer = self._next()
            if answer is None:
                break
            out += answer
        return out

    def idle_expired(self, now: float) -> bool:
        keepalive = self.server.keepalive
        return keepalive is not None and not self.buffer and now - self.active_at >= keepalive

    def _next(self) -> bytes | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > MAX_HEAD:
                return self._refuse(400)
            return None
        head = bytes(self.buffer[:end]).decode("latin1")
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1.") or not parts[1].startswith("/"):
            return self._refuse(400)
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon or not name.strip():
                return self._refuse(400)
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._refuse(400)  # bodies sent in chunks are not simulated
        length_text = headers.get("content-length", "0") or "0"
        if not length_text.isdigit():
            return self._refuse(400)
        length = int(length_text)
        if length > MAX_BODY:
            return self._refuse(413)
        if len(self.buffer) < end + 4 + length:
            return None
        del self.buffer[: end + 4 + length]
        self.served += 1
        keep = _keeps_alive(version, headers) and self.served < REQUESTS_PER_CONNECTION
        response = self.server.respond(method, target)
        self._log(f"{method} {target} {version}", response, headers)
        if not keep:
            self.closed = True
        return _serialize(response, keep)

    def _refuse(self, status: int) -> bytes:
        self.closed = True
        reason = _REASONS[status]
        profile = self.server.profile
        if profile is not None and profile.family == "nginx":
            body = web.nginx_error_page(profile, status, reason)
        else:
            body = f"{status} {reason}\n"
        headers = [
            ("Date", web.http_date()),
            ("Content-Type", "text/html"),
            ("Content-Length", str(len(body.encode()))),
        ]
        return _serialize(Response(status, reason, headers, body), keep=False)

    def _log(self, request_line: str, response: Response, headers: dict[str, str]) -> None:
        size = len(response.body.encode())
        local = _time_local(clock.now().astimezone(UTC))
        referer = headers.get("referer", "-") or "-"
        agent = headers.get("user-agent", "-") or "-"
        forwarded = headers.get("x-forwarded-for", "-") or "-"
        if self.server.family == "nginx":
            if response.status == 404:  # the error log (stderr) first, as nginx writes it
                self.server.log(_nginx_not_found(request_line, headers, self.peer, self.served))
            quoted = f'"{referer}" "{agent}" "{forwarded}"'
            self.server.log(f'{self.peer} - - [{local}] "{request_line}" {response.status} {size} {quoted}')
        elif self.server.family == "httpd":
            self.server.log(f'{self.peer} - - [{local}] "{request_line}" {response.status} {size or "-"}')


def _nginx_not_found(request_line: str, headers: dict[str, str], peer: str, number: int) -> str:
    """nginx's error log line for a file that is not there (worker 29, connection *N)."""
    path = request_line.split(" ")[1].split("?", 1)[0]
    when = clock.now().astimezone(UTC).strftime("%Y/%m/%d %H:%M:%S")
    return (
        f'{when} [error] 29#29: *{number} open() "/usr/share/nginx/html{path}" failed '
        f'(2: No such file or directory), client: {peer}, server: localhost, request: "{request_line}", '
        f'host: "{headers.get("host", "")}"'
    )


def _time_local(moment: datetime) -> str:
    """nginx's $time_local and httpd's %t: 05/Dec/2026:08:00:00 +0000."""
    return moment.strftime("%d/%b/%Y:%H:%M:%S +0000")


def _keeps_alive(version: str, headers: dict[str, str]) -> bool:
    connection = headers.get("connection", "").lower()
    if version == "HTTP/1.0":
        return connection == "keep-alive"
    return connection != "close"


def _serialize(response: Response, keep: bool) -> bytes:
    lines = [f"HTTP/1.1 {response.status} {response.reason}".rstrip()]
    seen_connection = False
    for name, value in response.headers:
        if name.lower() == "connection":
            value = "keep-alive" if keep else "close"
            seen_connection = True
        lines.append(f"{name}: {value}")
    if not seen_connection and not keep:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + response.body.encode()

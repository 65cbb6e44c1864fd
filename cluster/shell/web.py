"""The servers inside the simulated containers, answering curl and wget: nginx serves its html
directory (with whatever the students wrote into it), httpd its htdocs, tomcat its 404."""

from __future__ import annotations

import json
import posixpath
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus

from cluster.shell.filesystem import FileSystem, FsError
from cluster.shell.profiles import Profile

_DOC_ROOTS = {"nginx": "/usr/share/nginx/html", "httpd": "/usr/local/apache2/htdocs"}


@dataclass(slots=True)
class Response:
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: str


def http_date() -> str:
    return datetime.now(UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")


def nginx_error_page(profile: Profile, status: int, reason: str) -> str:
    return (
        f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
        f"<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx/{profile.version}</center>\r\n"
        "</body>\r\n</html>\r\n"
    )


def _httpd_error(path: str) -> str:
    return (
        '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n'
        "</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n"
        "</body></html>\n"
    )


TOMCAT_404 = (
    '<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body>'
    '<h1>HTTP Status 404 – Not Found</h1><hr class="line" /><p><b>Type</b> Status Report</p>'
    "<p><b>Description</b> The origin server did not find a current representation for the target "
    'resource or is not willing to disclose that one exists.</p><hr class="line" />'
    "<h3>Apache Tomcat/{version}</h3></body></html>"
)


def serve(profile: Profile, fs: FileSystem, path: str, method: str = "GET") -> Response:
    """One HTTP request to the container's server."""
    path = path.split("?", 1)[0] or "/"
    if profile.family == "tomcat":
        body = TOMCAT_404.format(version=profile.version)
        headers = [
            ("Content-Type", "text/html;charset=utf-8"),
            ("Content-Language", "en"),
            ("Content-Length", str(len(body.encode()))),
            ("Date", http_date()),
        ]
        return Response(404, "", headers, body)
    root = _DOC_ROOTS[profile.family]
    target = posixpath.normpath(posixpath.join(root, path.lstrip("/")))
    if fs.is_dir(target):
        target = posixpath.join(target, "index.html")
    server = f"nginx/{profile.version}" if profile.family == "nginx" else f"Apache/{profile.version} (Unix)"
    try:
        body = fs.read(target)
        status, reason = 200, "OK"
    except FsError:
        status, reason = 404, "Not Found"
        body = nginx_error_page(profile, 404, reason) if profile.family == "nginx" else _httpd_error(path)
    headers = [
        ("Server", server),
        ("Date", http_date()),
        ("Content-Type", "text/html"),
        ("Content-Length", str(len(body.encode()))),
    ]
    if status == 200:
        headers.append(("Last-Modified", "Mon, 07 Oct 2024 17:35:00 GMT"))
    headers += (
        [("Connection", "keep-alive"), ("Accept-Ranges", "bytes")]
        if status == 200
        else [("Connection", "keep-alive")]
    )
    return Response(status, reason, headers, "" if method == "HEAD" else body)


def speaks_http(profile: Profile) -> bool:
    return profile.family in ("nginx", "httpd", "tomcat")


def api_server(path: str, method: str = "GET") -> Response:
    """kube-apiserver behind the `kubernetes` Service, to an anonymous caller: the public info
    (version, health) and 403 for the rest, pretty-printed as it answers curl."""
    from cluster.kubeapi.resources import VERSION

    path = path.split("?", 1)[0] or "/"
    if path in ("/healthz", "/livez", "/readyz"):
        status, body, kind = 200, "ok", "text/plain; charset=utf-8"
    elif path == "/version":
        status, body, kind = 200, json.dumps(VERSION, indent=2), "application/json"
    else:
        forbidden = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'forbidden: User "system:anonymous" cannot get path "{path}"',
            "reason": "Forbidden",
            "details": {},
            "code": 403,
        }
        status, body, kind = 403, json.dumps(forbidden, indent=2) + "\n", "application/json"
    return api_response(method, status, body, kind)


def api_response(method: str, status: int, body: str, kind: str) -> Response:
    """An answer of kube-apiserver as curl and wget see it: its headers, and no body for HEAD."""
    headers = [
        ("Audit-Id", str(uuid.uuid4())),
        ("Cache-Control", "no-cache, private"),
        ("Content-Type", kind),
        ("Date", http_date()),
        ("Content-Length", str(len(body.encode()))),
    ]
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    return Response(status, reason, headers, "" if method == "HEAD" else body)

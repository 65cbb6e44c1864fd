"""The API port's root address: `https://HOST:API_PORT/api/v1/…` as on a real cluster's API server.

A kubeconfig's server has no path; the credential says which cluster a request is for
(cluster/auth/addressing.py). On the API listener this wrapper turns the paths kube-apiserver
serves at its root (`/api`, `/apis`, `/version`, `/openapi/…`, `/healthz`, `/livez`, `/readyz`,
`/metrics`) into the same cluster's `/clusters/NAME/…` paths, for HTTP and websockets (exec)
alike, before anything else sees the request; `GET /` lists them, as kube-apiserver does.
`/clusters/NAME/…` is served as before (older kubeconfigs, plain-HTTP readers). Any other path
on the API port is answered here: a 404 Status, as kube-apiserver's.

The API listener is the TLS port `manage.py serve --api-port` opens (`serve_api_on`); the
plain-HTTP port (the browsers') is left as it is.
"""

from __future__ import annotations

import json
import re

from cluster.apiserver.errors import NO_SUCH_RESOURCE_STATUS
from cluster.auth.addressing import cluster_named_by
from cluster.kubeapi.rootpaths import root_paths

ROOT_PATHS = re.compile(r"/(?:api|apis|version|openapi/v[23]|healthz|livez|readyz|metrics)(?:/.*)?")
CLUSTER_PATHS = re.compile(r"/clusters/[^/]+/.*")
SCOPE_FLAG = "kubesim.api_listener"

_api_ports: set[int] = set()


def serve_api_on(port: int) -> None:
    """Requests arriving on this local port are the API server's (called by `manage.py serve`)."""
    _api_ports.add(port)


def on_api_listener(scope: dict) -> bool:
    server = scope.get("server")
    return bool(server) and server[1] in _api_ports


def not_found_status() -> bytes:
    return json.dumps(NO_SUCH_RESOURCE_STATUS).encode()


def _authorization(scope: dict) -> str:
    for name, value in scope.get("headers") or []:
        if name.lower() == b"authorization":
            return value.decode("latin-1")
    return ""


def at_cluster(scope: dict) -> dict | None:
    """The scope with its root path turned into the caller's cluster's path; the scope itself for a
    `/clusters/…` path; None for a path the API server does not serve."""
    path = scope.get("path", "")
    if CLUSTER_PATHS.fullmatch(path):
        return {**scope, SCOPE_FLAG: True}
    if not ROOT_PATHS.fullmatch(path):
        return None
    prefix = f"/clusters/{cluster_named_by(_authorization(scope))}"
    routed = {**scope, SCOPE_FLAG: True, "path": prefix + path}
    if scope.get("raw_path"):
        routed["raw_path"] = prefix.encode() + scope["raw_path"]
    return routed


class ApiRoot:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket") or not on_api_listener(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and scope.get("path") == "/" and scope.get("method") in ("GET", "HEAD"):
            await _answer(send, 200, json.dumps(root_paths(), indent=2).encode())
            return
        routed = at_cluster(scope)
        if routed is not None:
            await self.app(routed, receive, send)
        elif scope["type"] == "websocket":
            await receive()  # websocket.connect; closing before accepting refuses it (HTTP 403)
            await send({"type": "websocket.close", "code": 1008})
        else:
            await _answer_not_found(send)


async def _answer_not_found(send) -> None:
    await _answer(send, 404, not_found_status())


async def _answer(send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

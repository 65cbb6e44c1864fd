"""Websocket routes.

The dashboard's sockets are checked against the browser's Origin (AllowedHostsOriginValidator);
pods/exec is served on kube-apiserver's path outside that check, because kubectl sends no Origin
(the exec consumer checks an Origin itself when a browser sends one).
"""

from __future__ import annotations

import re

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path, re_path

from cluster.api.exec_consumer import ExecConsumer
from cluster.consumers import ClusterConsumer
from labs.routing import websocket_urlpatterns as labs_websocket_urlpatterns

EXEC_PATH = (
    r"clusters/(?P<cluster>[-a-z0-9]+)/api/v1/namespaces/(?P<namespace>[^/]+)/pods/(?P<name>[^/]+)/exec/?$"
)

websocket_urlpatterns = [
    path("ws/clusters/<slug:cluster>/", ClusterConsumer.as_asgi()),
    *labs_websocket_urlpatterns,
]
exec_urlpatterns = [re_path(r"^" + EXEC_PATH, ExecConsumer.as_asgi())]

_exec_path = re.compile(r"^/" + EXEC_PATH)


def websocket_application():
    """The `websocket` protocol's app: pods/exec by its path, every other socket behind the Origin check."""
    browser = AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
    remote_command = AuthMiddlewareStack(URLRouter(exec_urlpatterns))

    async def route(scope, receive, send):
        app = remote_command if _exec_path.match(scope.get("path", "")) else browser
        return await app(scope, receive, send)

    return route

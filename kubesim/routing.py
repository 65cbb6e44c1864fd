"""Websocket routes.

pods/exec is served on kube-apiserver's own path: kubectl's socket sends no Origin and is
authenticated by its bearer token (cluster.auth.access); a browser's (the web console) is checked for
the page's origin like every other socket (kubesim/ws_origin.py).
"""

from __future__ import annotations

from django.urls import path, re_path

from cluster.api.exec_consumer import ExecConsumer
from cluster.broadcast.consumers import ClusterConsumer
from labs.routing import websocket_urlpatterns as labs_websocket_urlpatterns

EXEC_PATH = (
    r"^clusters/(?P<cluster>[-a-z0-9]+)/api/v1/namespaces/(?P<namespace>[^/]+)/pods/(?P<name>[^/]+)/exec/?$"
)

websocket_urlpatterns = [
    path("ws/clusters/<slug:cluster>/", ClusterConsumer.as_asgi()),
    re_path(EXEC_PATH, ExecConsumer.as_asgi()),
    *labs_websocket_urlpatterns,
]

"""Websocket routes.

pods/exec and pods/attach are served on kube-apiserver's own paths: kubectl's socket sends no Origin and is
authenticated by its bearer token (cluster.auth.access); a browser's (the web console) is checked for
the page's origin like every other socket (kubesim/ws_origin.py).
"""

from __future__ import annotations

from django.urls import path, re_path

from cluster.api.attach_consumer import AttachConsumer
from cluster.api.exec_consumer import ExecConsumer
from cluster.api.portforward.consumer import PortForwardConsumer
from cluster.broadcast.consumers import ClusterConsumer
from labs.routing import websocket_urlpatterns as labs_websocket_urlpatterns

EXEC_PATH = (
    r"^clusters/(?P<cluster>[-a-z0-9]+)/api/v1/namespaces/(?P<namespace>[^/]+)/pods/(?P<name>[^/]+)/exec/?$"
)
ATTACH_PATH = EXEC_PATH.replace("/exec/", "/attach/")

websocket_urlpatterns = [
    path("ws/clusters/<slug:cluster>/", ClusterConsumer.as_asgi()),
    re_path(EXEC_PATH, ExecConsumer.as_asgi()),
    re_path(ATTACH_PATH, AttachConsumer.as_asgi()),
    re_path(EXEC_PATH.replace("/exec/", "/portforward/"), PortForwardConsumer.as_asgi()),
    *labs_websocket_urlpatterns,
]

"""Websocket routes."""

from __future__ import annotations

from django.urls import path

from cluster.consumers import ClusterConsumer
from labs.routing import websocket_urlpatterns as labs_websocket_urlpatterns

websocket_urlpatterns = [
    path("ws/clusters/<slug:cluster>/", ClusterConsumer.as_asgi()),
    *labs_websocket_urlpatterns,
]

"""Websocket routes."""

from __future__ import annotations

from django.urls import path

from cluster.consumers import ClusterConsumer

websocket_urlpatterns = [
    path("ws/clusters/<slug:cluster>/", ClusterConsumer.as_asgi()),
]

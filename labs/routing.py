"""Websocket routes of the labs: the student's lab panel and the instructor's progress board."""

from __future__ import annotations

from django.urls import path

from labs.consumers import BoardConsumer, StudentConsumer

websocket_urlpatterns = [
    path("ws/labs/student/", StudentConsumer.as_asgi()),
    path("ws/labs/session/<str:code>/", BoardConsumer.as_asgi()),
]

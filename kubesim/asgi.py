"""ASGI entry point: HTTP through Django, websockets through Channels' router."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kubesim.settings")
# Django must be set up before the consumers (and their models) are imported.
django.setup(set_prefix=False)

from kubesim.handler import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

# Daphne serves no static files itself: the dashboard's CSS/JS come from the app's finders (no
# build step, no collectstatic needed for `make run`). Everything else goes to Django.
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

django_asgi_app = ASGIStaticFilesHandler(django_asgi_app)

from channels.routing import ProtocolTypeRouter  # noqa: E402

from kubesim.routing import websocket_application  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": websocket_application()})

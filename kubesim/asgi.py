"""ASGI entry point: HTTP through Django, websockets through Channels' router."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kubesim.settings")
# Django must be set up before the consumers (and their models) are imported.
django.setup(set_prefix=False)

from kubesim.handler import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

# Static files are answered by ServeStatic before Django (kubesim/static.py): content-hashed
# names cached for good once `collectstatic` has run. Everything else goes to Django.
from kubesim.static import static_app  # noqa: E402

django_asgi_app = static_app(django_asgi_app)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from database.wsoffthread import auth_middleware_stack  # noqa: E402
from kubesim.apiroot import ApiRoot  # noqa: E402
from kubesim.headers import SecurityHeaders  # noqa: E402
from kubesim.routing import websocket_urlpatterns  # noqa: E402
from kubesim.ws_origin import SameOriginValidator  # noqa: E402

# The API port's root paths are the caller's cluster's (kubesim/apiroot.py), for both protocols.
application = ApiRoot(
    ProtocolTypeRouter(
        {
            "http": SecurityHeaders(django_asgi_app),
            # Browser sockets: same scheme, host and port as the page; a socket without Origin
            # (kubectl's) is authenticated by bearer token only (cluster.auth.access.caller_of).
            "websocket": SameOriginValidator(auth_middleware_stack(URLRouter(websocket_urlpatterns))),
        }
    )
)

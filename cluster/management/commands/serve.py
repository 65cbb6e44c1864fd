"""Serve KubeSim with Daphne from our own entry point.

Daphne has no ASGI lifespan, so this command is where the embedded control plane starts.
"""

from __future__ import annotations

from daphne.endpoints import build_endpoint_description_strings
from daphne.server import Server
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve the dashboard and API on HOST:PORT (embedded default: one process)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options):
        from kubesim.asgi import application

        self.stdout.write(f"KubeSim serving on http://{host}:{port}/")
        Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            signal_handlers=True,
        ).run()

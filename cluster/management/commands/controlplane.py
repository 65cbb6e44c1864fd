"""Run the control plane on its own: controller manager, scheduler and kubelets, no web server.

For deployments where Daphne serves with `serve --no-control-plane`; the components reach the
cluster only through the database (the API server's functions and the event log), so they can
live in this separate process. Leader election (a Lease) is not implemented yet: run one.
"""

from __future__ import annotations

import asyncio

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the controller manager, the scheduler and the kubelets of every cluster."

    def handle(self, *args, **options):
        from cluster import controlplane

        self.stdout.write("Control plane running: controller manager, scheduler, kubelets (Ctrl-C stops).")
        try:
            asyncio.run(controlplane.supervise())
        except KeyboardInterrupt:
            self.stdout.write("Control plane stopped.")

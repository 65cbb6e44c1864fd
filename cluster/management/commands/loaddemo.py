"""Create the course's demo cluster: master (control-plane taint), node1 and node2."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from database.throwaway_db import require_migrated


class Command(BaseCommand):
    help = "Create cluster 'demo' (master, node1, node2); KUBESIM_PACE_MS sets its starting pace."

    def add_arguments(self, parser):
        parser.add_argument("--name", default="demo")
        parser.add_argument("--pace-ms", type=int, default=None)

    def handle(self, *args, name: str, pace_ms: int | None, **options):
        require_migrated()
        if Cluster.objects.filter(name=name).exists():
            raise CommandError(f"cluster {name!r} already exists")
        pace = settings.KUBESIM_PACE_MS if pace_ms is None else pace_ms
        create_demo(name, pace)
        self.stdout.write(f"Created cluster {name!r}: master, node1, node2 (pace {pace} ms).")

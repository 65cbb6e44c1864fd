"""Put the class demo back to the course's starting state, for the next class."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from cluster.apiserver.actor import Actor
from cluster.controlplane.demo import reset_demo
from cluster.models import Cluster
from database.throwaway_db import require_migrated


class Command(BaseCommand):
    help = (
        "Reset cluster 'demo' to the course's starting state through the API server: the class's "
        "objects and added nodes go, master, node1 and node2 get back their labels, taints and "
        "cached images; pace, step mode and 'Class may write' go back to their defaults."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", default="demo")

    def handle(self, *args, name: str, **options):
        require_migrated()
        cluster = Cluster.objects.filter(name=name, public=True).first()
        if cluster is None:
            raise CommandError(f"no class demo named {name!r} (`manage.py loaddemo` creates it)")
        reset_demo(cluster, Actor("api", "kubesim resetdemo"))
        self.stdout.write(f"Cluster {name!r} is back to the course's starting state.")

"""Write a kubeconfig that points the real kubectl at one KubeSim cluster.

python manage.py kubeconfig --cluster demo --output ~/.kube/kubesim
KUBECONFIG=~/.kube/kubesim kubectl get nodes
"""

from __future__ import annotations

from pathlib import Path

import yaml
from django.core.management.base import BaseCommand, CommandError

from cluster.models import Cluster
from kubesim.throwaway_db import require_migrated


def kubeconfig(cluster: str, server: str) -> dict:
    """A kubeconfig with one cluster, one (anonymous) user and one current context."""
    name = f"kubesim-{cluster}"
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": f"{server.rstrip('/')}/clusters/{cluster}"}}],
        "users": [{"name": name, "user": {}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": "default"}}],
        "current-context": name,
        "preferences": {},
    }


class Command(BaseCommand):
    help = "Print or write a kubeconfig for kubectl against a KubeSim cluster."

    def add_arguments(self, parser):
        parser.add_argument("--cluster", default="demo")
        parser.add_argument("--server", default="http://127.0.0.1:8000", help="KubeSim's base URL")
        parser.add_argument("--output", help="file to write (default: standard output)")

    def handle(self, *args, cluster: str, server: str, output: str | None, **options):
        require_migrated()
        if not Cluster._default_manager.filter(name=cluster).exists():
            raise CommandError(f'cluster "{cluster}" does not exist')
        text = yaml.safe_dump(kubeconfig(cluster, server), sort_keys=False)
        if output is None:
            self.stdout.write(text, ending="")
            return
        path = Path(output).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o600)
        self.stdout.write(f"Wrote {path}; use it with: KUBECONFIG={path} kubectl get nodes")

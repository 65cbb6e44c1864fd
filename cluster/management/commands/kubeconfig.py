"""Write a kubeconfig that points the real kubectl at one KubeSim cluster, over TLS, with a token.

python manage.py kubeconfig --cluster demo --output ~/.kube/kubesim
KUBECONFIG=~/.kube/kubesim kubectl get nodes

The server is https://HOST:API_PORT (API_PORT from the environment, as `make run` reads it), with
no path: the token names the cluster (cluster/auth/kubeconfig.py). For a shared cluster the
teacher's kubeconfig, a context and token per cluster with NAME's current; for a sandbox its
student's, one context; with --anonymous no token (read-only; the path form
https://HOST:API_PORT/clusters/NAME for a cluster other than the demo).
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cluster.auth import kubeconfig
from cluster.auth.access import sandbox_token
from cluster.models import Cluster
from database.throwaway_db import require_migrated


class Command(BaseCommand):
    help = "Print or write a kubeconfig (TLS, CA data, token) for kubectl against a KubeSim cluster."

    def add_arguments(self, parser):
        parser.add_argument("--cluster", default="demo")
        parser.add_argument("--host", default="127.0.0.1", help="the API server's host name or address")
        parser.add_argument("--port", type=int, default=None, help="the API port (default: API_PORT or 6443)")
        parser.add_argument(
            "--anonymous", action="store_true", help="no token: read-only, as system:anonymous"
        )
        parser.add_argument("--output", help="file to write (default: standard output)")

    def handle(self, *args, cluster: str, host: str, port: int | None, anonymous: bool, output, **options):
        require_migrated()
        found = Cluster._default_manager.filter(name=cluster).first()
        if found is None:
            raise CommandError(f'cluster "{cluster}" does not exist')
        address = kubeconfig.api_server(host, port)
        if anonymous:
            text = kubeconfig.render(found, address, {found.name: ""})
        elif found.owner_id and not found.public:
            text = kubeconfig.render(found, address, {found.name: sandbox_token(found)})
        else:
            text = kubeconfig.render_teacher(found, address)
        if output is None:
            self.stdout.write(text, ending="")
            return
        path = Path(output).expanduser()
        write(path, text)
        self.stdout.write(f"Wrote {path}; use it with: export KUBECONFIG={path.resolve()}")


def write(path: Path, text: str) -> None:
    """Write a file holding a token: mode 0600 from its creation."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    path.chmod(0o600)

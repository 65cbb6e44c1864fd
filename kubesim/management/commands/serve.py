"""Serve KubeSim with Daphne from our own entry point, with the embedded control plane.

Daphne has no ASGI lifespan, so this command is where the control plane starts: once Daphne
listens (its `ready_callable`), the controller manager, scheduler and kubelets of every cluster
start as tasks on the same asyncio loop, each cluster's after its Lease is won (cluster/client/leader.py).
A database with no cluster gets the course's demo. `--no-control-plane` serves only: the scale-out
profile runs the components in `manage.py controlplane` processes.

`--api-port` also serves the same application over HTTPS, as kube-apiserver on :6443: the CA and
serving certificate come from the state directory (cluster/auth/tls.py), and the teacher's kubeconfig
for the demo is written there; the presenter link and the `export KUBECONFIG=…` line are printed.
That kubeconfig names API_PORT, as every kubeconfig KubeSim writes: the one address kubectl is to
reach. Under `make run` it is this process's own `--api-port`; in the scale-out profile the first
process's or, behind a TCP proxy, the proxy's (deploy/run-scaled.sh, SERVER_API_PORT).
"""

from __future__ import annotations

import asyncio
import signal
import socket

from daphne.server import Server
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from cluster.auth import state
from cluster.management.commands.kubeconfig import write
from cluster.models import Cluster
from database.throwaway_db import require_migrated
from kubesim import listening, shutdown
from kubesim.apiroot import serve_api_on
from kubesim.gc_tuning import tune_for_long_running


class Command(BaseCommand):
    help = "Serve the dashboard and API on HOST:PORT with the embedded control plane (one process)."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--api-port",
            type=int,
            default=None,
            help="also serve over HTTPS on this port, as kube-apiserver (make run: API_PORT, 6443)",
        )
        parser.add_argument(
            "--no-control-plane",
            action="store_true",
            help="Serve only (the control plane runs elsewhere, e.g. `manage.py controlplane`).",
        )

    def handle(self, *args, host: str, port: int, api_port: int | None, no_control_plane: bool, **options):
        require_migrated()
        state.require_private(self.stderr)
        from kubesim.asgi import application

        if not Cluster.objects.exists():
            call_command("loaddemo", stdout=self.stdout)
        self.port = port
        self.control_plane = not no_control_plane
        endpoints = listening.endpoints(host, port)
        served = f"http://{host}:{port}/"
        if api_port:
            serve_api_on(api_port)
            endpoints.append(f"{tls_endpoint(host, api_port)}:backlog={socket.SOMAXCONN}")
            served += f" and https://{host}:{api_port}/ (the API server, TLS)"
        self.stdout.write(f"KubeSim serving on {served} ({tune_for_long_running()})")
        if api_port:
            self._print_teacher_access(host, port, api_port)
        self.server = Server(
            application=application,
            endpoints=endpoints,
            signal_handlers=True,
            ready_callable=self._ready,
        )
        self.server.run()
        # The reactor stopped (Ctrl-C, SIGTERM): the process ends within the stop's budget, even
        # when a request thread is still busy (kubesim/shutdown.py).
        shutdown.finish(0)

    def _ready(self) -> None:
        """Daphne listens: slow request heads get their deadline; the control plane starts; a stop
        starts its clock the moment it is asked for."""
        from twisted.internet import reactor

        listening.guard(self.server.http_factory)
        reactor.addSystemEventTrigger("before", "shutdown", shutdown.begin)
        reactor.callWhenRunning(shutdown.on_signals, signal.SIGINT, signal.SIGTERM)
        if self.control_plane:
            self._start_control_plane()

    def _print_teacher_access(self, host: str, port: int, api_port: int) -> None:
        """The presenter link (it signs the browser in as the teacher) and the demo's kubeconfig."""
        from cluster.auth import kubeconfig
        from cluster.auth.access import presenter_token
        from cluster.auth.state import state_dir

        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        web = f"[{shown}]" if ":" in shown else shown
        self.stdout.write(f"Teacher: open http://{web}:{port}/presenter/?token={presenter_token()}")
        demo = Cluster.objects.filter(name="demo").first()
        if demo is not None:
            path = state_dir() / "demo.kubeconfig"
            server = kubeconfig.api_server(shown)
            write(path, kubeconfig.render_teacher(demo, server))
            self.stdout.write(f"kubectl: export KUBECONFIG={path}")
            if api_port != settings.KUBESIM_API_PORT:
                self.stdout.write(
                    f"kubectl: it names {server} (API_PORT); this process serves the API on {api_port}"
                )

    def _start_control_plane(self) -> None:
        from twisted.internet import defer, reactor

        from cluster.client import leader
        from cluster.controlplane import runtime

        # Called by Daphne inside its running reactor, whose loop is asyncio's: the components
        # become tasks beside the HTTP and websocket handlers. Alone on SQLite (the embedded
        # default) this process runs every cluster's control plane without an election: each
        # Lease names it once (cluster/controlplane/runtime.py, Embedded). With PostgreSQL or Redis it
        # campaigns for the leases as `manage.py controlplane` does. The identity stays the same
        # across restarts on this port, so a restarted `make run` leads again at once.
        identity = f"{socket.gethostname()}_serve-{self.port}"
        supervise = runtime.supervise(identity=identity, elect=leader.election_needed())
        self._supervisor = asyncio.get_event_loop().create_task(supervise)
        reactor.addSystemEventTrigger("before", "shutdown", lambda: defer.Deferred.fromFuture(self._stop()))
        self.stdout.write(f"Control plane started ({identity}): controller manager, scheduler, kubelets.")

    def _stop(self) -> asyncio.Future:
        """On Ctrl-C or SIGTERM: stop the components and hand the leases back before exiting."""
        self._supervisor.cancel()
        timeout = shutdown.left(shutdown.COMPONENTS_SECONDS)
        return asyncio.ensure_future(asyncio.wait([self._supervisor], timeout=timeout))


def tls_endpoint(host: str, port: int) -> str:
    """Twisted's endpoint string for Daphne's TLS listener, with our CA-signed certificate."""
    from cluster.auth import tls

    files = tls.ensure(settings.ALLOWED_HOSTS)

    def quoted(value: object) -> str:
        return str(value).replace("\\", "\\\\").replace(":", "\\:")

    key, cert = quoted(files.key), quoted(files.cert)
    return f"ssl:port={port}:interface={quoted(host)}:privateKey={key}:certKey={cert}"

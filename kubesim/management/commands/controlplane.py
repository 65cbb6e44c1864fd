"""Run the control plane on its own: controller manager, scheduler and kubelets, no web server.

For deployments where Daphne serves with `serve --no-control-plane`; the components reach the
cluster only through the database (the API server's functions and the event log), so they can
live in this separate process. Run two or more, on one machine or several sharing PostgreSQL and
Redis: each campaigns for every cluster's Lease (kube-system/kubesim-controlplane) and leads a fair
share of them (cluster/controlplane/share.py); the holder runs that cluster's components, the
others take over within seconds when it dies. SIGTERM or Ctrl-C hands the leases back at once.
"""

from __future__ import annotations

import asyncio
import signal

from django.core.management.base import BaseCommand

from cluster.auth import state
from database.throwaway_db import require_migrated
from kubesim import shutdown
from kubesim.gc_tuning import tune_for_long_running


class Command(BaseCommand):
    help = "Run the controller manager, the scheduler and the kubelets of every cluster (leader-elected)."

    def add_arguments(self, parser):
        parser.add_argument("--identity", default=None, help="Lease holder identity (hostname_pid_id).")

    def handle(self, *args, identity: str | None, **options):
        require_migrated()
        state.require_private(self.stderr)
        from cluster.client import leader

        me = identity or leader.identity()
        self.stdout.write(
            f"Control plane candidate {me}: waiting for the lease (Ctrl-C stops; {tune_for_long_running()})."
        )
        self.stdout.flush()
        asyncio.run(self._run(me))

    async def _run(self, me: str) -> None:
        """Supervise until Ctrl-C or SIGTERM; then stop, within the stop's budget, and end the
        process from here: asyncio.run's own end would wait for every task and database thread."""
        from cluster.controlplane import runtime

        task = asyncio.create_task(runtime.supervise(identity=me))
        asked = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, asked.set)
        shutdown.on_signals(signal.SIGINT, signal.SIGTERM)
        waiting = asyncio.create_task(asked.wait())
        await asyncio.wait([task, waiting], return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        shutdown.begin()
        if task.done():  # the supervisor ended by itself: it failed
            self.stderr.write(f"Control plane failed: {task.exception()!r}")
            shutdown.finish(1)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=shutdown.left(shutdown.COMPONENTS_SECONDS))
        self.stdout.write("Control plane stopped; leases released." if done else "Control plane stopped.")
        shutdown.finish(0)

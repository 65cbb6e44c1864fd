"""What a console command runs with: the cluster, the authorized client, the working directory and
the text pasted as its standard input."""

from __future__ import annotations

from dataclasses import dataclass

from cluster.models import Cluster
from dashboard.console.client import Client
from dashboard.console.workdir import Workdir


@dataclass(slots=True)
class Context:
    cluster: Cluster
    client: Client
    workdir: Workdir
    stdin: str = ""

    @property
    def who(self):
        """The request the command came in (None: the server itself)."""
        return self.client.who

"""Run commands in a simulated container without a cluster."""

from __future__ import annotations

import itertools

from cluster.shell.context import ContainerContext
from cluster.shell.profiles import profile_for
from cluster.shell.session import run_exec
from cluster.shell.streams import InputStream, NoInput

_ids = itertools.count(1)


def context(image: str = "nginx:1.25", tty: bool = False, pod: str = "web", **extra) -> ContainerContext:
    container_id = extra.pop("container_id", f"docker://test{next(_ids)}")
    return ContainerContext(
        "demo", "default", pod, "main", image, profile_for(image), container_id,
        pod_ip="10.244.1.5", node="node1", tty=tty, **extra,
    )  # fmt: skip


def run(argv: list[str], image: str = "nginx:1.25", stdin: bytes | None = None, ctx=None, tty=False):
    """(status, stdout, stderr) of one exec."""
    ctx = ctx or context(image, tty=tty)
    streams = {1: [], 2: []}
    source = NoInput()
    if stdin is not None:
        source = InputStream()
        source.feed(stdin)
        source.close()
    status = run_exec(ctx, argv, source, lambda channel, text: streams[channel].append(text))
    return status, "".join(streams[1]), "".join(streams[2])


def sh(script: str, image: str = "nginx:1.25", shell: str = "bash", ctx=None):
    return run([shell, "-c", script], image, ctx=ctx)

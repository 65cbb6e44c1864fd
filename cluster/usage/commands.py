"""What a container's command does, as far as its CPU is concerned: a busy loop, a loop that sends
requests (a load generator: `while true; do wget -q -O- http://web; done`), or nothing much.

The kubelet does not run the command's text yet (cluster/kubelet/commands.py reads how it ends);
this reads the same text for the work it does: the loops and the requests, not their output.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

# A script longer than this is read only this far: a student's megabyte of `while` costs nothing.
MAX_SCRIPT = 4096
# One request of a `wget`/`curl` loop inside the cluster network: connect, GET, read, exit.
REQUEST_SECONDS = 0.002
# A shell that starts a `wget` for each request: millicores per request per second, and its floor.
CLIENT_CPU_PER_RPS = 0.4
CLIENT_IDLE_MILLICORES = 0.5
ONE_CORE = 1000.0

_LOOP = re.compile(
    r"\b(?:while\s+(?:true\b|:|sleep\s+[\d.]+[smhd]?\b)|until\s+false\b)|\bfor\s*\(\(\s*;\s*;\s*\)\)"
)
_SPIN = re.compile(
    r"^\s*(?:yes\b|(?:md5sum|sha\d*sum|cat)\s+/dev/(?:zero|urandom)\b|dd\s+if=/dev/(?:zero|urandom)\b)"
)
_SLEEP = re.compile(r"\bsleep\s+(\d+(?:\.\d+)?)([smhd]?)\b")
_CLIENT = re.compile(r"\b(wget|curl)\b([^;&|\n]*)")
_OPTIONS_WITH_VALUE = {
    "-O",
    "-o",
    "-T",
    "-U",
    "-H",
    "-Y",
    "-P",
    "--header",
    "-m",
    "--max-time",
    "-w",
    "-X",
    "-d",
}
_SHELLS = ("sh", "/bin/sh", "bash", "/bin/bash", "ash", "/bin/ash")


@dataclass(frozen=True, slots=True)
class Request:
    """Where a client's requests go: a host name or IP and a port (None: the scheme's)."""

    host: str
    port: int | None


@dataclass(frozen=True, slots=True)
class Work:
    """What a running container's command does: its own millicores, and the requests it sends."""

    millicores: float = 0.0
    targets: tuple[Request, ...] = ()
    requests_per_second: float = 0.0  # to each target


IDLE = Work()


def _script(argv: list[str]) -> str:
    if len(argv) >= 3 and argv[0] in _SHELLS and argv[1] == "-c":
        return argv[2]
    return shlex.join(argv)


def _seconds(number: str, unit: str) -> float:
    return float(number) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def _url_of(arguments: str) -> str | None:
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in _OPTIONS_WITH_VALUE:
            skip = True
            continue
        if word.startswith("-"):
            continue
        return word
    return None


def parse_target(url: str) -> Request | None:
    """`http://web`, `web:8080/x`, `https://10.96.0.12/` → the host and the port."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "http", url
    if scheme not in ("http", "https"):
        return None
    authority = rest.split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
    host, _, port = authority.partition(":")
    if not host:
        return None
    if port and not port.isdigit():
        return None
    return Request(host.lower(), int(port) if port else (443 if scheme == "https" else 80))


@lru_cache(maxsize=4096)
def _work_of(script: str) -> Work:
    script = script[:MAX_SCRIPT]
    if _SPIN.search(script):
        return Work(ONE_CORE)
    if not _LOOP.search(script):
        return IDLE  # it runs once and ends (or waits: sleep, tail -f): no lasting work
    pause = sum(_seconds(m.group(1), m.group(2)) for m in _SLEEP.finditer(script))
    targets = tuple(
        dict.fromkeys(
            t for m in _CLIENT.finditer(script) if (u := _url_of(m.group(2))) and (t := parse_target(u))
        )
    )
    if targets:
        rate = 1.0 / (REQUEST_SECONDS * len(targets) + pause)  # loops of the whole body per second
        return Work(CLIENT_IDLE_MILLICORES + CLIENT_CPU_PER_RPS * rate * len(targets), targets, rate)
    if pause <= 0:
        return Work(ONE_CORE)  # `while true; do :; done`: one core, all the time
    return Work(min(ONE_CORE, 0.05 / pause + 0.05))  # wakes, does a little, sleeps


def work_of(container: dict) -> Work:
    """What the container's command (or args) does; a server image's own process is its profile's."""
    argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    if not argv:
        return IDLE
    return _work_of(_script(argv))

"""What a container's command does, for the images whose default command ends (busybox, alpine,
ubuntu, ...): how long it runs and the code it exits with.

A small reading of the command line, enough for the examples of a course and of Jobs:
`sh -c "exit 1"` fails at once, `echo hi` and `date` succeed at once, `sleep 2` succeeds after two
seconds, `sleep 5; exit 3` fails after five, `sleep infinity`, `tail -f /dev/null` and
`while true; do ...; done` never end. Server images (nginx, redis, ...) keep running whatever
their command is, as a server does.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from cluster.kubelet.images import Image

_SHELLS = ("sh", "/bin/sh", "bash", "/bin/bash", "ash", "/bin/ash")
_FOREVER = re.compile(r"^\s*(while\s+(true|:)\b|tail\s+-f\b|sleep\s+inf)")
_SEPARATOR = re.compile(r"\s*(?:;|&&|\n)\s*")


@dataclass(frozen=True, slots=True)
class Outcome:
    """A container that ends: after `seconds`, with `exit_code`."""

    exit_code: int
    seconds: float

    @property
    def reason(self) -> str:
        return "Completed" if self.exit_code == 0 else "Error"


def _script(argv: list[str]) -> str:
    if len(argv) >= 3 and argv[0] in _SHELLS and argv[1] == "-c":
        return argv[2]
    return shlex.join(argv)


def _duration(word: str) -> float | None:
    """busybox sleep's argument: 2, 0.5, 3s, 2m, 1h; None for infinity or nonsense."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", word)
    if match is None:
        return None
    scale = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    return float(match.group(1)) * scale


def outcome(container: dict, image: Image) -> Outcome | None:
    """How the container ends, or None when it keeps running."""
    argv = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    if image.long_running:
        return None
    if not argv:
        return Outcome(0, 0.0)  # the image's `sh` with no terminal ends at once
    script = _script(argv)
    if _FOREVER.search(script):
        return None
    seconds = 0.0
    for part in _SEPARATOR.split(script.strip()):
        try:
            words = shlex.split(part)
        except ValueError:
            return Outcome(2, seconds)  # sh: syntax error
        if not words:
            continue
        name = words[0].rsplit("/", 1)[-1]
        if name == "exit":
            code = words[1] if len(words) > 1 else "0"
            return Outcome(int(code) % 256 if code.isdigit() else 2, seconds)
        if name == "sleep":
            duration = _duration(words[1]) if len(words) > 1 else None
            if duration is None:
                return None if len(words) > 1 and words[1].startswith("inf") else Outcome(1, seconds)
            seconds += duration
        elif name == "false":
            return Outcome(1, seconds)
    return Outcome(0, seconds)

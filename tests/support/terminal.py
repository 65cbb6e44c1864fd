"""The real kubectl on a terminal (pexpect): `run -it`, `attach -it`, `debug -it` as a student
types them, up to the container's shell prompt."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

HINT = "If you don't see a command prompt, try pressing enter."


@contextmanager
def shell(kubectl, *args: str, timeout: float = 30) -> Iterator:
    """Spawn `kubectl ARGS` on a terminal, press enter at kubectl's hint and wait for busybox's
    prompt; the pexpect child, closed when the block ends (its exitstatus is then set)."""
    pexpect = pytest.importorskip("pexpect")
    command, env = kubectl._command(args)
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=timeout)
    try:
        child.expect_exact(HINT)
        child.send("\r")
        child.expect_exact("/ # ")
        yield child
    finally:
        child.close()


def read_to_end(child) -> None:
    """Wait for kubectl to exit (its output's end)."""
    pexpect = pytest.importorskip("pexpect")
    child.expect(pexpect.EOF)

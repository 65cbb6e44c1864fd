"""Polling a live server until something holds, and text compared without its ages."""

from __future__ import annotations

import re
import time


def wait_for(check, seconds: float = 30.0, interval: float = 0.3):
    """Call `check` until it returns something truthy or `seconds` pass; its last result."""
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(interval)


def without_ages(text: str) -> str:
    """kubectl's output with every age ("5s", "2m3s", "4h") replaced, to compare two readings."""
    return re.sub(r"\b\d+[smhdy]\d*[smhd]?\b", "AGE", text)

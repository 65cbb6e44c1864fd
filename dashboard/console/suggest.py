"""cobra's "Did you mean this?" for an unknown command: kubectl's commands within two edits of
what was typed (Levenshtein, case-insensitive), or that start with it."""

from __future__ import annotations

from dashboard.console.parser import KUBECTL

MINIMUM_DISTANCE = 2


def distance(a: str, b: str) -> int:
    a, b = a.lower(), b.lower()
    row = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (char != other))
    return row[-1]


def suggestions(typed: str) -> str:
    """The text cobra appends to `unknown command` (empty when nothing is close)."""
    found = [
        name
        for name in KUBECTL["commands"]
        if distance(typed, name) <= MINIMUM_DISTANCE or name.lower().startswith(typed.lower())
    ]
    if not found:
        return ""
    return "\n\nDid you mean this?\n" + "".join(f"\t{name}\n" for name in found)

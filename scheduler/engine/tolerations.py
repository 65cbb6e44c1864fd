"""Toleration-matches-taint, as v1.Toleration.ToleratesTaint does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def tolerates(toleration: dict, taint: dict) -> bool:
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def tolerated_by_any(taint: dict, tolerations: Iterable[dict]) -> bool:
    return any(tolerates(toleration, taint) for toleration in tolerations)


def first_untolerated(
    taints: Sequence[dict], tolerations: Sequence[dict], effects: tuple[str, ...]
) -> tuple[int, dict] | None:
    """The first taint (index, taint) with one of `effects` that no toleration tolerates."""
    for index, taint in enumerate(taints):
        if taint.get("effect") in effects and not tolerated_by_any(taint, tolerations):
            return index, taint
    return None

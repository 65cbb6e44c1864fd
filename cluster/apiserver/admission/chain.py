"""Admission: functions that may refuse a write before it is stored (like ResourceQuota admission).

Each is called inside the write's transaction for create, update, patch, scale and bind (not for
status writes or deletes) as fn(cluster, verb, kind, body, actor) and may raise ApiError
(403 Forbidden "exceeded quota: ...", 429 TooManyRequests).
"""

from __future__ import annotations

from collections.abc import Callable

Admit = Callable[..., None]
_REGISTERED: list[Admit] = []


def register(fn: Admit) -> Admit:
    """Add an admission function (idempotent, so AppConfig.ready() may run twice)."""
    if fn not in _REGISTERED:
        _REGISTERED.append(fn)
    return fn


def unregister(fn: Admit) -> None:
    if fn in _REGISTERED:
        _REGISTERED.remove(fn)


def admit(cluster, verb: str, kind: str, body: dict, actor) -> None:
    for fn in tuple(_REGISTERED):
        fn(cluster, verb, kind, body, actor)


# Mutating admission of a create, run before the kind's defaults (as upstream's plugins see what
# the client sent): fn(cluster, kind, body) may change the body or raise ApiError.
Mutate = Callable[..., None]
_MUTATING: list[Mutate] = []


def register_mutating(fn: Mutate) -> Mutate:
    if fn not in _MUTATING:
        _MUTATING.append(fn)
    return fn


def mutate(cluster, kind: str, body: dict) -> None:
    for fn in tuple(_MUTATING):
        fn(cluster, kind, body)


# Mutating admission that sees the object as upstream's admission does, after the kind's defaults
# (LimitRanger: a pod that sets only limits has had its requests defaulted to them already).
_MUTATING_DEFAULTED: list[Mutate] = []


def register_defaulted(fn: Mutate) -> Mutate:
    if fn not in _MUTATING_DEFAULTED:
        _MUTATING_DEFAULTED.append(fn)
    return fn


def mutate_defaulted(cluster, kind: str, body: dict) -> None:
    for fn in tuple(_MUTATING_DEFAULTED):
        fn(cluster, kind, body)

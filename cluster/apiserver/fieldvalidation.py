"""fieldValidation (Strict | Warn | Ignore) of one decoded object, as kube-apiserver judges a body.

Two kinds of problem: fields the kind's schema does not have (cluster.kubeapi.openapi) and fields
given twice (a JSON body's `duplicate field`, a YAML body's `key "x" already set in map`).
Strict (kubectl's default) refuses the object with upstream's 400 text; Warn answers the same
texts as warnings; under every mode the unknown fields are dropped before storing, as the real
server's typed decoding drops them. The page's apply, the web console and the labs' manifests
use Strict, as kubectl does; the REST API takes the mode from `?fieldValidation=`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cluster.apiserver.errors import ApiError
from cluster.kubeapi import openapi
from k8s.yamldocs import format_path

MODES = ("Strict", "Warn", "Ignore")
_PART = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


@dataclass(frozen=True, slots=True)
class Problem:
    field: str  # spec.containers[0].tolerations
    text: str  # upstream's words: unknown field "spec.containers[0].tolerations"
    line: int | None = None  # in the YAML the user wrote, when known
    yaml: bool = False  # a YAML duplicate key: listed under "yaml: unmarshal errors:"


class StrictDecodingError(ApiError):
    """400: `Pod in version "v1" cannot be handled as a Pod: strict decoding error: …`."""

    def __init__(self, kind: str, version: str, problems: list[Problem]) -> None:
        self.problems = problems
        message = f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: '
        super().__init__(400, "BadRequest", message + describe(problems))


def describe(problems: list[Problem]) -> str:
    """The problems as upstream joins them: YAML's unmarshal errors first, then the field errors."""
    yaml_lines = [f"  line {p.line}: {p.text}" for p in problems if p.yaml]
    parts = ["yaml: unmarshal errors:\n" + "\n".join(yaml_lines)] if yaml_lines else []
    return ", ".join(parts + [p.text for p in problems if not p.yaml])


def yaml_duplicates(duplicates: Iterable[tuple[tuple, int]], prefix: tuple = ()) -> list[Problem]:
    """A YAML document's repeated keys (k8s.yamldocs keeps them) under `prefix` (a List's item)."""
    found = []
    for path, line in duplicates:
        if path[: len(prefix)] == prefix:
            field = format_path(path[len(prefix) :])
            found.append(Problem(field, f'key "{path[-1]}" already set in map', line, yaml=True))
    return found


def json_duplicates(paths: Iterable[str]) -> list[Problem]:
    return [Problem(path, f'duplicate field "{path}"') for path in paths]


def path_parts(field: str) -> tuple:
    """'spec.containers[0].image' -> ('spec', 'containers', 0, 'image'); map keys stay strings."""
    return tuple(name or (int(index) if index.isdigit() else index) for name, index in _PART.findall(field))


def _drop(obj: object, field: str) -> None:
    parts = path_parts(field)
    for part in parts[:-1]:
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif isinstance(obj, list) and isinstance(part, int) and part < len(obj):
            obj = obj[part]
        else:
            return
    if isinstance(obj, dict) and parts:
        obj.pop(parts[-1], None)


def judge(
    kind: str,
    version: str,
    obj: object,
    duplicates: list[Problem] | None = None,
    mode: str = "Strict",
    locate: Callable[[str], int | None] | None = None,
) -> list[str]:
    """Drop `obj`'s unknown fields; under Strict raise StrictDecodingError when there were problems
    (`duplicates` found while decoding, and the unknown fields, located by `locate`); under Warn
    return their texts as warnings; under Ignore return nothing."""
    if not isinstance(obj, dict):
        return []
    unknown = openapi.strict_decode(kind, obj, version)
    problems = list(duplicates or [])
    problems += [Problem(f, f'unknown field "{f}"', locate(f) if locate else None) for f in unknown]
    if problems and mode == "Strict":
        raise StrictDecodingError(kind, version, problems)
    for field in unknown:
        _drop(obj, field)
    if mode != "Warn":
        return []
    return [f"line {p.line}: {p.text}" if p.yaml else p.text for p in problems]

"""Validation primitives for lab files: located errors and value-kind checks.

Errors carry their place as RELATE reports them ("lab 'taints', step 2 ('create-pod'), check 1:
unknown key 'nodeNmae' (line 14)"); a Reader collects all of them instead of stopping at the first.
"""

from __future__ import annotations

import copy
import difflib
import re
from dataclasses import dataclass, field

from cluster.apiserver import fieldvalidation, kinds
from k8s.yamldocs import Document, YamlError, load_documents
from labs import vocabulary as v
from labs.labmodel import Text
from labs.paths import PathError, label_error, parse_path, selector_error


def manifest_kinds() -> tuple[str, ...]:
    """The kinds a lab's manifests may create: the registry's, as registered now."""
    return kinds.lab_manifest_kinds()


@dataclass(slots=True)
class LabError:
    where: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        suffix = f" (line {self.line})" if self.line else ""
        return f"{self.where}: {self.message}{suffix}" if self.where else f"{self.message}{suffix}"

    def as_dict(self) -> dict:
        return {"where": self.where, "message": self.message, "line": self.line, "text": str(self)}


class LabValidationError(ValueError):
    def __init__(self, errors: list[LabError]) -> None:
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


@dataclass(slots=True)
class Reader:
    """Walks one document, collecting located errors instead of stopping at the first."""

    doc: Document
    lab_id: str = "?"
    errors: list[LabError] = field(default_factory=list)

    def where(self, *parts: str) -> str:
        return ", ".join([f"lab '{self.lab_id}'", *parts])

    def error(self, where: str, path: tuple, message: str) -> None:
        self.errors.append(LabError(where, message, self.doc.line_of(path)))

    def mapping(self, where: str, path: tuple, value: object, required: dict, optional: dict) -> dict:
        if not isinstance(value, dict):
            self.error(where, path, f"must be a mapping with keys {', '.join(required) or '…'}")
            return {}
        for key in value:
            if key not in required and key not in optional:
                self.error(where, (*path, key), f"unknown key {key!r}{_suggest(key, [*required, *optional])}")
        for key in required:
            if key not in value:
                self.error(where, path, f"missing required key {key!r}")
        return value

    def text(self, where: str, path: tuple, value: object) -> Text:
        data = self.mapping(where, path, value, {"en": v.STR, "zh": v.STR}, {})
        for lang in ("en", "zh"):
            if lang in data and (not isinstance(data[lang], str) or not data[lang].strip()):
                self.error(where, (*path, lang), f"'{lang}' must be non-empty text")
        return Text(str(data.get("en") or ""), str(data.get("zh") or ""))

    def typed(self, where: str, path: tuple, value: object, kind: str) -> None:
        """Report why `value` is not of value kind `kind` (see labs.vocabulary)."""
        problem = type_problem(value, kind)
        if problem:
            self.error(where, path, problem)

    def manifests(self, where: str, path: tuple, text: object) -> str:
        """YAML manifests embedded as a block string; errors point into the lab file's lines."""
        if not isinstance(text, str):
            self.error(where, path, "must be a block of YAML manifests (use `|`)")
            return ""
        offset = self.doc.line_of(path)
        try:
            documents = load_documents(text, keep_duplicates=True)
        except YamlError as exc:
            line = offset + exc.line if exc.line else offset
            self.errors.append(LabError(where, f"invalid YAML: {exc.message}", line))
            return text
        for doc in documents:
            self._manifest(where, doc, offset)
        return text

    def _manifest(self, where: str, doc: Document, offset: int) -> None:
        here = f"{where}, manifest {doc.index + 1}"
        data = doc.data
        if not isinstance(data, dict):
            self.errors.append(LabError(here, "must be a Kubernetes object (a mapping)", offset + doc.line))
            return
        for key in ("apiVersion", "kind", "metadata"):
            if key not in data:
                self.errors.append(LabError(here, f"missing required key {key!r}", offset + doc.line))
        kind = data.get("kind")
        if kind is not None and kind not in manifest_kinds():
            line = offset + doc.line_of(("kind",))
            self.errors.append(
                LabError(
                    here, f"kind {kind!r} is not served (use one of {', '.join(manifest_kinds())})", line
                )
            )
        meta = data.get("metadata")
        if isinstance(meta, dict) and not isinstance(meta.get("name"), str):
            self.errors.append(
                LabError(here, "metadata.name is required", offset + doc.line_of(("metadata",)))
            )
        if isinstance(kind, str) and kind in manifest_kinds():
            self._strict(here, doc, offset, kind)

    def _strict(self, here: str, doc: Document, offset: int, kind: str) -> None:
        """Unknown and repeated fields, refused as kubectl's Strict decoding refuses them."""
        data = copy.deepcopy(doc.data)
        version = str(data.get("apiVersion", "")).rsplit("/", 1)[-1]
        try:
            fieldvalidation.judge(kind, version, data, fieldvalidation.yaml_duplicates(doc.duplicates))
        except fieldvalidation.StrictDecodingError as err:
            for problem in err.problems:
                line = problem.line or doc.line_of(fieldvalidation.path_parts(problem.field))
                message = fieldvalidation.StrictDecodingError(kind, version, [problem]).message
                self.errors.append(LabError(here, message, offset + line))


def _suggest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(sorted(known))})"


def type_problem(value: object, kind: str) -> str | None:
    strings = (v.STR, v.PATH, v.REGEX, v.SELECTOR, v.LABEL, v.KIND, v.PHASE, v.EFFECT)
    if kind in strings and (not isinstance(value, str) or not value):
        return "must be a non-empty string"
    checks = {
        v.INT: lambda: (
            None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"
        ),
        v.BOOL: lambda: None if isinstance(value, bool) else "must be true or false",
        v.SCALAR: lambda: (
            None
            if value is None or isinstance(value, str | int | float | bool)
            else "must be a string, number, boolean or null"
        ),
        v.PATH: lambda: _path_problem(value),
        v.REGEX: lambda: _regex_problem(value),
        v.SELECTOR: lambda: selector_error(value),
        v.LABEL: lambda: label_error(value),
        v.KIND: lambda: (
            None if value in v.kinds() else f"{value!r} is not a kind checks know ({', '.join(v.kinds())})"
        ),
        v.PHASE: lambda: (
            None if value in v.PHASES else f"{value!r} is not a pod phase ({', '.join(v.PHASES)})"
        ),
        v.EFFECT: lambda: (
            None if value in v.EFFECTS else f"{value!r} is not a taint effect ({', '.join(v.EFFECTS)})"
        ),
        v.TEXTS: lambda: _texts_problem(value),
        v.FIELDS: lambda: _fields_problem(value),
    }
    check = checks.get(kind)
    return check() if check else None


def _path_problem(value: str) -> str | None:
    try:
        parse_path(value)
    except PathError as exc:
        return str(exc)
    return None


def _regex_problem(value: str) -> str | None:
    try:
        re.compile(value)
    except re.error as exc:
        return f"invalid regular expression {value!r}: {exc}"
    return None


def _texts_problem(value: object) -> str | None:
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item for item in value):
        return "must be a non-empty list of regular expressions"
    return next(filter(None, map(_regex_problem, value)), None)


def _fields_problem(value: object) -> str | None:
    if not isinstance(value, dict) or not value:
        return "must be a mapping of field paths to values"
    for path, expected in value.items():
        problem = _path_problem(path) or type_problem(expected, v.SCALAR)
        if problem:
            return f"{path}: {problem}"
    return None

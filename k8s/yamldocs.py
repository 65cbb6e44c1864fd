"""Multi-document YAML read safely, remembering where every field came from.

Used wherever users hand us YAML (the explain command, the apply endpoint, lab files) so that an
error can name the document, the field path and the line. Aliases are refused outright: a
"billion laughs" alias bomb cannot expand, and Kubernetes manifests never need them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import yaml

from k8s.numbers import INT64_MAX, INT64_MIN, OutOfRange, finite, fit_int, int_from_text

MAX_DOCUMENTS = 500
MAX_DEPTH = 100


class YamlError(ValueError):
    """Malformed YAML; `line` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None, document: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.document = document

    def __str__(self) -> str:
        where = []
        if self.document is not None:
            where.append(f"document {self.document}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass(slots=True)
class Document:
    index: int  # 0-based position in the stream
    data: object
    line: int  # 1-based line where the document starts
    lines: dict[tuple, int] = field(default_factory=dict)  # field path -> 1-based line
    # Keys given twice in one mapping (path, 1-based line of the repeat), when the caller keeps them:
    # the later value wins, as in Go's YAML decoder; a strict reader reports them.
    duplicates: list[tuple[tuple, int]] = field(default_factory=list)

    def line_of(self, path: tuple) -> int:
        """The line of `path`, or of its nearest ancestor that we know."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.line


def format_path(path: tuple) -> str:
    """('spec', 'containers', 0, 'image') -> 'spec.containers[0].image'."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """`text` with its UTF-16 halves (PyYAML reads "\\ud83d\\ude00" as two) joined into their
    character and lone ones replaced by U+FFFD, as Go does: every string can then be UTF-8."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _construct(
    node: yaml.Node, path: tuple, lines: dict, depth: int, duplicates: list | None = None, line: int = 0
) -> object:
    """`line`: where the field's key is (a block mapping's value starts on the next line)."""
    if depth > MAX_DEPTH:
        raise YamlError(f"nesting is too deep (more than {MAX_DEPTH} levels)", node.start_mark.line + 1)
    lines[path] = line or node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict = {}
        for key_node, value_node in node.value:
            key = (
                yaml.SafeLoader.construct_scalar(_LOADER, key_node)
                if isinstance(key_node, yaml.ScalarNode)
                else None
            )
            if not isinstance(key, str):
                raise YamlError("mapping keys must be strings", key_node.start_mark.line + 1)
            key = utf8_safe(key)
            if key == "<<":
                raise YamlError("merge keys (<<) are not supported", key_node.start_mark.line + 1)
            if key in result:
                if duplicates is None:
                    raise YamlError(f"duplicate key {key!r}", key_node.start_mark.line + 1)
                duplicates.append(((*path, key), key_node.start_mark.line + 1))
            key_line = key_node.start_mark.line + 1
            result[key] = _construct(value_node, (*path, key), lines, depth + 1, duplicates, key_line)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _construct(item, (*path, i), lines, depth + 1, duplicates) for i, item in enumerate(node.value)
        ]
    try:
        value = _LOADER.construct_object(node, deep=True)
        return utf8_safe(value) if isinstance(value, str) else value
    except OutOfRange as err:
        _LOADER.recursive_objects.clear()  # the failed node stays marked "in progress" otherwise
        raise YamlError(str(err), node.start_mark.line + 1) from None


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YamlError("YAML aliases (*name) are not allowed", event.start_mark.line + 1)
        return super().compose_node(parent, index)


# go-yaml, which kubectl and kube-apiserver read YAML with (sigs.k8s.io/yaml), takes `1e-05`,
# `1E5` and `+1e+16` for floats (its yamlStyleFloat); YAML 1.1 (PyYAML) wants a dot and a signed
# exponent, and would read them as strings.
_GO_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
_NoAliasLoader.add_implicit_resolver("tag:yaml.org,2002:float", _GO_FLOAT, list("-+0123456789."))


def integral_as_json(number: float) -> float | int:
    """A YAML float as kube-apiserver reads it once sigs.k8s.io/yaml made it JSON: Go's encoding/json
    writes an integral float64 as an integer (`replicas: 3.0` becomes `3`, which decodes into an
    int32); past int64 it stays a number no integer field takes, as a long integer literal does."""
    if number.is_integer() and INT64_MIN <= number <= INT64_MAX:
        return int(number)
    return number


class _Constructor(yaml.SafeLoader):
    """Numbers as Kubernetes reads them (k8s.numbers): past int64 a float, past float64 (.inf,
    .nan, a 5,000-digit literal) a YamlError at its line, never Python's ValueError."""

    def construct_yaml_int(self, node):  # type: ignore[override]
        text = str(self.construct_scalar(node)).replace("_", "")
        digits = text.lstrip("+-")
        if digits.isdigit() and not digits.startswith("0"):
            return int_from_text(text)  # the plain decimal form, whatever its length
        try:
            number = super().construct_yaml_int(node)
        except ValueError:  # a hex, octal or base-60 form too long for int(): past any float64
            raise OutOfRange(text) from None
        return fit_int(number, text)

    def construct_yaml_float(self, node):  # type: ignore[override]
        text = str(self.construct_scalar(node))
        number = super().construct_yaml_float(node)
        if math.isinf(number) and "." not in text and _GO_FLOAT.match(text):
            return text  # go-yaml's float past float64 (`1e400`) fails to parse and stays a string
        return integral_as_json(finite(number, text))


_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_yaml_float)
_LOADER = _Constructor("")


def load_documents(text: str, keep_duplicates: bool = False) -> list[Document]:
    """Parse every document; empty documents are dropped. Raises YamlError with the line.

    A key given twice in one mapping is an error, unless `keep_duplicates`: then the later value
    wins and each repeat is listed in its document's `duplicates` (for a strict decoder to judge)."""
    try:
        loader = _NoAliasLoader(text)  # the reader checks the characters at once
    except yaml.YAMLError as err:
        raise YamlError(str(err)) from None
    documents: list[Document] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            lines: dict[tuple, int] = {}
            duplicates: list | None = [] if keep_duplicates else None
            data = _construct(node, (), lines, 0, duplicates)
            if data is not None:
                start = node.start_mark.line + 1
                documents.append(Document(len(documents), data, start, lines, duplicates or []))
            if len(documents) > MAX_DOCUMENTS:
                raise YamlError(f"too many documents (more than {MAX_DOCUMENTS})")
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        raise YamlError(str(err.problem or err), mark.line + 1 if mark else None, len(documents)) from None
    except yaml.YAMLError as err:
        raise YamlError(str(err), None, len(documents)) from None
    except RecursionError:  # PyYAML composes nested nodes recursively, before _construct counts
        raise YamlError(f"nesting is too deep (more than {MAX_DEPTH} levels)", None, len(documents)) from None
    except YamlError as err:
        err.document = len(documents)
        raise
    finally:
        loader.dispose()
    return documents


class NotOneDocument(YamlError):
    """Well-formed YAML, but not exactly one document."""


def load_one(text: str) -> object:
    """One YAML (or JSON) document's data; YamlError when malformed, NotOneDocument when not one."""
    documents = load_documents(text)
    if len(documents) != 1:
        raise NotOneDocument(f"expected one YAML document, found {len(documents)}")
    return documents[0].data

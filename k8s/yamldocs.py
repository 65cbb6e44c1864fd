"""Multi-document YAML read safely, remembering where every field came from.

Used wherever users hand us YAML (the explain command, the apply endpoint, lab files) so that an
error can name the document, the field path and the line. Aliases are refused outright: a
"billion laughs" alias bomb cannot expand, and Kubernetes manifests never need them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

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
    return _LOADER.construct_object(node, deep=True)


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YamlError("YAML aliases (*name) are not allowed", event.start_mark.line + 1)
        return super().compose_node(parent, index)


_LOADER = yaml.SafeLoader("")


def load_documents(text: str, keep_duplicates: bool = False) -> list[Document]:
    """Parse every document; empty documents are dropped. Raises YamlError with the line.

    A key given twice in one mapping is an error, unless `keep_duplicates`: then the later value
    wins and each repeat is listed in its document's `duplicates` (for a strict decoder to judge)."""
    loader = _NoAliasLoader(text)
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

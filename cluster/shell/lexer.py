"""Split a shell command line into words and operators, keeping how each part was quoted
(the grammar over them is `parser.py`).

A word is a list of parts (kind, text): "lit" (single quotes or a backslash: taken as is), "dq"
(double quotes: $ expands, no globbing) and "bare" (unquoted: $ expands, then splitting and
globbing). `$(...)` is kept whole in a "sub" part.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPERATORS = ("&&", "||", ">>", "2>&1", "1>&2", ">&2", "2>", ";", "|", ">", "<", "&", "\n")
# Redirections that start with a file descriptor's digit: only at the start of a word.
_FD_OPERATORS = ("2>&1", "1>&2", "2>")
# Redirections that take no file name.
DUPLICATIONS = ("2>&1", "1>&2", ">&2")


class ShellSyntaxError(Exception):
    """The message is the part after `bash: -c: line 1: ` (or dash's `Syntax error: `)."""


@dataclass(slots=True)
class Word:
    parts: list[tuple[str, str]] = field(default_factory=list)

    def add(self, kind: str, text: str) -> None:
        if self.parts and self.parts[-1][0] == kind and kind not in ("sub", "arith"):
            self.parts[-1] = (kind, self.parts[-1][1] + text)
        else:
            self.parts.append((kind, text))

    @property
    def literal(self) -> str:
        return "".join(text for _, text in self.parts)


Token = Word | str  # a word, or an operator


def _substitution(line: str, start: int) -> int:
    """The index just after the `)` closing the `(` at start."""
    depth, i = 0, start
    while i < len(line):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        elif line[i] == "'":
            end = line.find("'", i + 1)
            i = end if end != -1 else len(line)
        i += 1
    raise ShellSyntaxError("unexpected EOF while looking for matching `)'")


def _dollar_paren(line: str, i: int, word: Word) -> int:
    """`$((expr))` -> an "arith" part, `$(cmd)` -> a "sub" part; returns the index after it."""
    end = _substitution(line, i + 1)
    inner = line[i + 2 : end - 1]
    if inner.startswith("(") and inner.endswith(")"):
        word.add("arith", inner[1:-1])
    else:
        word.add("sub", inner)
    return end


def tokenize(line: str) -> list[Token]:
    tokens: list[Token] = []
    word: Word | None = None
    i = 0

    def finish() -> None:
        nonlocal word
        if word is not None:
            tokens.append(word)
            word = None

    while i < len(line):
        char = line[i]
        if char in " \t":
            finish()
            i += 1
            continue
        if char == "#" and word is None:
            break
        operator = next((op for op in OPERATORS if line.startswith(op, i)), None)
        if operator in _FD_OPERATORS and word is not None:
            operator = None  # `x2>y`: the digit belongs to the word
        if operator:
            finish()
            tokens.append(operator)
            i += len(operator)
            continue
        word = word or Word()
        if char == "\\" and i + 1 < len(line):
            word.add("lit", line[i + 1])
            i += 2
        elif char == "'":
            end = line.find("'", i + 1)
            if end == -1:
                raise ShellSyntaxError("unexpected EOF while looking for matching `''")
            word.add("lit", line[i + 1 : end])
            i = end + 1
        elif char == '"':
            i = _double_quoted(line, i + 1, word)
        elif line.startswith("$(", i):
            i = _dollar_paren(line, i, word)
        else:
            word.add("bare", char)
            i += 1
    finish()
    return tokens


def _double_quoted(line: str, i: int, word: Word) -> int:
    text = ""
    while i < len(line):
        char = line[i]
        if char == '"':
            word.add("dq", text)
            return i + 1
        if char == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`':
            word.add("dq", text)
            word.add("lit", line[i + 1])
            text = ""
            i += 2
            continue
        if line.startswith("$(", i):
            word.add("dq", text)
            text = ""
            i = _dollar_paren(line, i, word)
            continue
        text += char
        i += 1
    raise ShellSyntaxError("unexpected EOF while looking for matching `\"'")


@dataclass(slots=True)
class Command:
    words: list[Word] = field(default_factory=list)
    redirects: list[tuple[str, Word | None]] = field(default_factory=list)  # (op, target)


@dataclass(slots=True)
class Pipeline:
    commands: list[Command] = field(default_factory=list)


@dataclass(slots=True)
class AndOr:
    """pipeline (("&&" | "||") pipeline)*"""

    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)

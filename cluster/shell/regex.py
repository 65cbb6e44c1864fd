"""POSIX regular expressions (grep's BRE and ERE) on RE2, whose matching time is linear in the
text whatever the pattern: `(a+)+$` cannot make a student's grep hold the server.

RE2 has no back-references (`\\1`): a pattern with one is refused with grep's own error shape
(docs/shell.md says so).
"""

from __future__ import annotations

import re2

# BRE's escaped operators (GNU's \+ \? \| included) and the characters that are literal there.
_BRE_OPERATORS = {"(": "(", ")": ")", "{": "{", "}": "}", "+": "+", "?": "?", "|": "|"}
_BRE_LITERALS = set("(){}+?|")
# GNU's word boundaries.
_WORD_EDGES = {"<": r"\b", ">": r"\b"}


class PatternError(Exception):
    """The message is what grep prints after `grep: `."""


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """A bracket expression from pattern[i] == "[": (its RE2 spelling, the index after it).
    In POSIX a backslash inside brackets is itself; `]` first is a member."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        if pattern.startswith("[:", j) or pattern.startswith("[=", j) or pattern.startswith("[.", j):
            end = pattern.find(pattern[j + 1] + "]", j + 2)
            j = end + 2 if end != -1 else j + 1
            continue
        j += 1
    if j >= len(pattern):
        raise PatternError("Unmatched [, [^, [:, [., or [=")
    body = pattern[i + 1 : j].replace("\\", "\\\\")
    return "[" + body + "]", j + 1


def translate(pattern: str, extended: bool) -> str:
    """A POSIX pattern -> the same pattern in RE2's syntax."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "[":
            text, i = _bracket(pattern, i)
            out.append(text)
            continue
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if not extended and nxt in _BRE_OPERATORS:
                out.append(_BRE_OPERATORS[nxt])
            elif nxt in _WORD_EDGES:
                out.append(_WORD_EDGES[nxt])
            elif nxt.isdigit():
                raise PatternError("back-references are not simulated (KubeSim matches with RE2)")
            else:
                out.append("\\" + nxt)
            i += 2
            continue
        if not extended and (char in _BRE_LITERALS or (char == "*" and not out)):
            out.append("\\" + char)
        else:
            out.append(char)
        i += 1
    return "".join(out)


def compile_pattern(pattern: str, extended: bool = False, fixed: bool = False, ignore_case: bool = False):
    """A compiled pattern whose `search(text)` runs in linear time; PatternError if invalid."""
    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    if fixed:
        options.literal = True
        source = pattern
    else:
        source = translate(pattern, extended)
    try:
        return re2.compile(source, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else "Invalid regular expression"
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise PatternError(_posix_message(str(detail))) from None


def _posix_message(detail: str) -> str:
    """RE2's complaint in GNU grep's words where grep has them."""
    if detail.startswith("missing )"):
        return "Unmatched ( or \\("
    if detail.startswith("unexpected )") or detail.startswith("missing ("):
        return "Unmatched ) or \\)"
    if detail.startswith("missing ]"):
        return "Unmatched [, [^, [:, [., or [="
    return "Invalid regular expression"

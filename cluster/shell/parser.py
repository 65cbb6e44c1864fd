"""The shell's grammar over the lexer's tokens: lists, and-or lists, pipelines, simple commands and
the compound commands `while`/`until`, `for` and `if` (POSIX 2.9.4), nested to any depth.

A reserved word (`while`, `do`, `done`, …) counts only where a command starts and only unquoted.
A command that is not finished at the end of the text (an open `while`, a trailing `&&`, an open
quote) raises Incomplete, so that a script reader can add its next line and parse again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.shell.lexer import (
    DUPLICATIONS,
    AndOr,
    Command,
    Pipeline,
    ShellSyntaxError,
    Token,
    Word,
    tokenize,
)

RESERVED = {"while", "until", "do", "done", "for", "in", "if", "then", "elif", "else", "fi", "!"}
SEPARATORS = (";", "&", "\n")
REDIRECTIONS = (">", ">>", "<", "2>")
# Nesting deeper than this is refused (each level is a Python frame while parsing and running).
MAX_DEPTH = 64


class Incomplete(ShellSyntaxError):
    """The text ends inside a command: more lines would finish it."""


@dataclass(slots=True)
class Loop:
    """while/until CONDITION; do BODY; done"""

    until: bool
    condition: list[AndOr]
    body: list[AndOr]
    redirects: list[tuple[str, Word | None]] = field(default_factory=list)


@dataclass(slots=True)
class ForLoop:
    """for NAME [in WORDS]; do BODY; done"""

    name: str
    words: list[Word] | None
    body: list[AndOr]
    redirects: list[tuple[str, Word | None]] = field(default_factory=list)


@dataclass(slots=True)
class IfClause:
    """if C; then B; [elif C; then B;]… [else B;] fi"""

    branches: list[tuple[list[AndOr], list[AndOr]]]
    otherwise: list[AndOr] | None
    redirects: list[tuple[str, Word | None]] = field(default_factory=list)


Compound = Loop | ForLoop | IfClause


def _reserved(token: Token | None) -> str | None:
    if isinstance(token, Word) and len(token.parts) == 1 and token.parts[0][0] == "bare":
        text = token.parts[0][1]
        return text if text in RESERVED else None
    return None


def _shown(token: Token | None) -> str:
    if token is None:
        return "newline"
    if isinstance(token, Word):
        return token.literal
    return "newline" if token == "\n" else token


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.index, self.depth = tokens, 0, 0

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> Token | None:
        token = self.peek()
        self.index += 1
        return token

    def unexpected(self, token: Token | None) -> ShellSyntaxError:
        if token is None:
            return Incomplete("syntax error: unexpected end of file")
        return ShellSyntaxError(f"syntax error near unexpected token `{_shown(token)}'")

    def skip_newlines(self) -> None:
        while self.peek() == "\n":
            self.index += 1

    def expect(self, word: str) -> None:
        self.skip_newlines()
        token = self.take()
        if _reserved(token) != word:
            raise self.unexpected(token)

    def compound_list(self, *ends: str) -> list[AndOr]:
        """Commands up to one of the reserved words `ends` (not taken); at least one."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellSyntaxError("syntax error: nested too deeply")
        lists: list[AndOr] = []
        while True:
            self.skip_newlines()
            token = self.peek()
            if token is None:
                raise self.unexpected(None)
            if _reserved(token) in ends:
                if not lists:
                    raise self.unexpected(token)
                self.depth -= 1
                return lists
            lists.append(self.and_or())
            token = self.peek()
            if token in SEPARATORS:
                self.index += 1
            elif _reserved(token) not in ends:
                raise self.unexpected(token)

    def program(self) -> list[AndOr]:
        lists: list[AndOr] = []
        while True:
            self.skip_newlines()
            token = self.peek()
            if token is None:
                return lists
            lists.append(self.and_or())
            token = self.peek()
            if token is None:
                return lists
            if token not in SEPARATORS:
                raise self.unexpected(token)
            self.index += 1

    def and_or(self) -> AndOr:
        current = AndOr(self.pipeline())
        while self.peek() in ("&&", "||"):
            operator = self.take()
            self.skip_newlines()  # `a &&` then the next line
            current.rest.append((operator, self.pipeline()))
        return current

    def pipeline(self) -> Pipeline:
        pipeline = Pipeline([self.command()])
        while self.peek() == "|":
            self.index += 1
            self.skip_newlines()
            pipeline.commands.append(self.command())
        return pipeline

    def command(self) -> Command | Compound:
        token = self.peek()
        word = _reserved(token)
        if word in ("while", "until"):
            self.index += 1
            condition = self.compound_list("do")
            self.expect("do")
            body = self.compound_list("done")
            self.expect("done")
            return self.redirected(Loop(word == "until", condition, body))
        if word == "for":
            return self.redirected(self.for_loop())
        if word == "if":
            return self.redirected(self.if_clause())
        if word is not None and word != "!":
            raise self.unexpected(token)
        return self.simple()

    def for_loop(self) -> ForLoop:
        self.index += 1
        name = self.take()
        if not isinstance(name, Word) or not name.literal.isidentifier():
            raise self.unexpected(name)
        words: list[Word] | None = None
        self.skip_newlines()
        if _reserved(self.peek()) == "in":
            self.index += 1
            words = []
            while isinstance(self.peek(), Word) and _reserved(self.peek()) != "do":
                words.append(self.take())
            if self.peek() in (";", "\n"):
                self.index += 1
        elif self.peek() == ";":
            self.index += 1
        self.expect("do")
        body = self.compound_list("done")
        self.expect("done")
        return ForLoop(name.literal, words, body)

    def if_clause(self) -> IfClause:
        self.index += 1
        branches = []
        otherwise = None
        while True:
            condition = self.compound_list("then")
            self.expect("then")
            body = self.compound_list("elif", "else", "fi")
            branches.append((condition, body))
            ending = _reserved(self.take())
            if ending == "elif":
                continue
            if ending == "else":
                otherwise = self.compound_list("fi")
                self.expect("fi")
            return IfClause(branches, otherwise)

    def redirected(self, compound: Compound) -> Compound:
        while True:
            token = self.peek()
            if token in REDIRECTIONS:
                self.index += 1
                target = self.take()
                if not isinstance(target, Word):
                    raise ShellSyntaxError(f"syntax error near unexpected token `{_shown(target)}'")
                compound.redirects.append((token, target))
            elif token in DUPLICATIONS:
                self.index += 1
                compound.redirects.append((token, None))
            else:
                return compound

    def simple(self) -> Command:
        command = Command()
        while True:
            token = self.peek()
            if isinstance(token, Word):
                if command.words or _reserved(token) is None or _reserved(token) == "!":
                    command.words.append(token)
                    self.index += 1
                    continue
                break
            if token in REDIRECTIONS:
                self.index += 1
                target = self.take()
                if not isinstance(target, Word):
                    raise ShellSyntaxError(f"syntax error near unexpected token `{_shown(target)}'")
                command.redirects.append((token, target))
                continue
            if token in DUPLICATIONS:
                self.index += 1
                command.redirects.append((token, None))
                continue
            break
        if not command.words and not command.redirects:
            token = self.peek()
            if token is None:
                raise self.unexpected(None)
            raise self.unexpected(token)
        return command


def parse(text: str) -> list[AndOr]:
    """A script (one or more lines) -> the lists to run one after another."""
    try:
        tokens = tokenize(text)
    except ShellSyntaxError as exc:
        if "unexpected EOF" in str(exc):
            raise Incomplete(str(exc)) from None
        raise
    return _Parser(tokens).program()

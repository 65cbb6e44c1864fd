"""Run parsed command lines: expansion, pipes, `;` `&&` `||`, redirections, builtins, programs."""

from __future__ import annotations

import contextlib
import fnmatch
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from cluster.shell.arithmetic import BadExpression, evaluate
from cluster.shell.context import ContainerContext
from cluster.shell.filesystem import FileSystem, FsError
from cluster.shell.lexer import AndOr, Command, ShellSyntaxError, Word
from cluster.shell.limits import Budget
from cluster.shell.parser import ForLoop, IfClause, Incomplete, Loop, parse
from cluster.shell.stdin import TextInput

# A bare word that expands to itself: no $, no glob, no ~, no blank to split on.
_PLAIN = re.compile(r"[^\s$*?\[~]+")


class ExpansionError(Exception):
    """A word that cannot be expanded (`$((1/0))`): the command does not run, status 1."""


class ExitShell(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class LoopControl(Exception):
    """`break N` / `continue N`: leaves (or goes on with) the Nth enclosing loop."""

    def __init__(self, levels: int, again: bool) -> None:
        self.levels, self.again = levels, again


@dataclass(slots=True)
class IO:
    """A program's standard streams: stdin read whole on demand, output appended."""

    read_stdin: Callable[[], str]
    write_out: Callable[[str], None]
    write_err: Callable[[str], None]


def _no_input() -> str:
    return ""


class Shell:
    """One shell process (`bash`, `sh`) in a container: variables, working directory, last status."""

    def __init__(self, ctx: ContainerContext, fs: FileSystem, name: str = "sh") -> None:
        self.ctx, self.fs, self.name = ctx, fs, name
        if ctx.budget is None:  # a shell outside an exec (tests, a peer container)
            ctx.budget = Budget(ctx.memory_limit)
        self.budget: Budget = ctx.budget
        self.env: dict[str, str] = dict(ctx.environment())
        self.cwd = ctx.profile.workdir
        self.env["PWD"] = self.cwd
        self.status = 0
        self.style = "bash" if name == "bash" else ctx.profile.base.shell_style
        self.line_number = 1
        self.source_depth = 0
        self.loop_depth = 0

    # -- messages as each shell words them -------------------------------------------------
    def not_found(self, program: str) -> str:
        if self.style == "bash":
            return f"{self.name}: {program}: command not found\n"
        if self.style == "dash":
            return f"{self.name}: {self.line_number}: {program}: not found\n"
        return f"{self.name}: {program}: not found\n"

    def error(self, text: str) -> str:
        if self.style == "dash":
            return f"{self.name}: {self.line_number}: {text}\n"
        return f"{self.name}: {text}\n"

    def syntax_error(self, message: str, source: str = "-c") -> str:
        if self.style == "bash":
            return f"{self.name}: {source}: line {self.line_number}: {message}\n"
        return f"{self.name}: {self.line_number}: Syntax error: {message}\n"

    # -- running ----------------------------------------------------------------------------
    def run(self, text: str, io: IO) -> int:
        """Run one command line; raises ExitShell on `exit`."""
        try:
            lists = parse(text)
        except ShellSyntaxError as exc:
            io.write_err(self.syntax_error(str(exc)))
            self.status = 2
            return 2
        self._run_lists(lists, io)
        return self.status

    @staticmethod
    def complete(text: str) -> bool:
        """Is text a whole command (or a plain error), not one that more lines would finish?"""
        try:
            parse(text)
        except Incomplete:
            return False
        except ShellSyntaxError:
            return True
        return True

    def _run_lists(self, lists: list[AndOr], io: IO) -> None:
        for and_or in lists:
            self.budget.step()
            self._run_and_or(and_or, io)

    def set_variable(self, name: str, value: str) -> None:
        """A shell variable's value is the shell's memory: charged to its budget."""
        self.budget.hold(len(value) - len(self.env.get(name, "")))
        self.env[name] = value

    def unset_variable(self, name: str) -> None:
        self.budget.release(len(self.env.pop(name, "")))

    def _run_and_or(self, and_or: AndOr, io: IO) -> None:
        self.status = self._run_pipeline(and_or.first.commands, io)
        for operator, pipeline in and_or.rest:
            if (operator == "&&") == (self.status == 0):
                self.status = self._run_pipeline(pipeline.commands, io)

    def _run_pipeline(self, commands: list[Command], io: IO) -> int:
        if len(commands) == 1:  # no pipe: the command has the caller's streams
            command = commands[0]
            if isinstance(command, Command):
                return self._run_command(command, io)
            return self._run_compound(command, io)
        status = 0
        read_stdin = io.read_stdin
        for index, command in enumerate(commands):
            last = index == len(commands) - 1
            captured: list[str] = []
            out = io.write_out if last else self._capture(captured)
            try:
                if isinstance(command, Command):
                    status = self._run_command(command, IO(read_stdin, out, io.write_err))
                else:
                    status = self._run_compound(command, IO(read_stdin, out, io.write_err))
            finally:
                self.budget.release(sum(map(len, captured)))
            if not last:
                read_stdin = TextInput("".join(captured))
        return status

    def _capture(self, into: list[str]) -> Callable[[str], None]:
        """A pipe's buffer (the next command reads it whole): held in the shell's memory."""

        def write(text: str) -> None:
            self.budget.hold(len(text))
            into.append(text)

        return write

    def _run_command(self, command: Command, io: IO) -> int:
        self.budget.step()
        words = list(command.words)
        assignments: dict[str, str] = {}
        argv: list[str] = []
        size = 0  # the bytes the expanded words take, before they are made
        try:
            while words and _assignment(words[0]):
                first = words.pop(0)
                name, _, rest = first.parts[0][1].partition("=")
                assignments[name] = "".join(self.expand(Word([("bare", rest), *first.parts[1:]]), size))
                size += len(assignments[name])
            for word in words:
                fields = self.expand(word, size)
                size += sum(map(len, fields))
                argv += fields
        except ExpansionError as exc:
            io.write_err(self.error(str(exc)))
            return 1
        io = self._redirected(command, io)
        if io is None:
            return 1
        if not argv:
            for name, value in assignments.items():  # `X=1`: a shell variable
                self.set_variable(name, value)
            return 0
        if not assignments:
            return self.execute(argv, io)
        saved = self.env  # `X=1 cmd`: in cmd's environment only
        self.env = {**saved, **assignments}
        try:
            return self.execute(argv, io)
        finally:
            self.env = saved

    def _run_compound(self, compound, io: IO) -> int:
        self.budget.step()
        redirected = self._redirected(compound, io)
        if redirected is None:
            return 1
        if isinstance(compound, Loop):
            return self._run_loop(compound, redirected)
        if isinstance(compound, ForLoop):
            return self._run_for(compound, redirected)
        return self._run_if(compound, redirected)

    def _run_loop(self, loop: Loop, io: IO) -> int:
        status = 0
        while True:
            self._run_lists(loop.condition, io)
            if (self.status == 0) == loop.until:
                return status
            again = self._run_body(loop.body, io)
            status = self.status
            if not again:
                return status

    def _run_for(self, loop: ForLoop, io: IO) -> int:
        values: list[str] = []
        try:
            for word in loop.words or []:
                values += self.expand(word)
        except ExpansionError as exc:
            io.write_err(self.error(str(exc)))
            return 1
        status = 0
        for value in values:
            self.budget.step()
            self.set_variable(loop.name, value)
            again = self._run_body(loop.body, io)
            status = self.status
            if not again:
                break
        return status

    def _run_body(self, body: list[AndOr], io: IO) -> bool:
        """A loop's body once; False if it said `break` to this loop."""
        self.loop_depth += 1
        try:
            self._run_lists(body, io)
        except LoopControl as control:
            if control.levels > 1:
                control.levels -= 1
                raise
            self.status = 0
            return control.again
        finally:
            self.loop_depth -= 1
        return True

    def _run_if(self, clause: IfClause, io: IO) -> int:
        for condition, body in clause.branches:
            self._run_lists(condition, io)
            if self.status == 0:
                self._run_lists(body, io)
                return self.status
        if clause.otherwise is not None:
            self._run_lists(clause.otherwise, io)
            return self.status
        return 0

    def _redirected(self, command, io: IO) -> IO | None:
        if not command.redirects:
            return io
        out, err, read_stdin = io.write_out, io.write_err, io.read_stdin
        for operator, target in command.redirects:
            if operator == "2>&1":
                err = out
                continue
            if operator in ("1>&2", ">&2"):
                out = err
                continue
            path = " ".join(self.expand(target)) if target is not None else ""
            full = self.fs.resolve(self.cwd, path)
            if operator == "<":
                try:
                    text = self.fs.read(full)
                except FsError as exc:
                    io.write_err(
                        self.error(
                            f"{path}: {exc}" if self.style != "dash" else f"cannot open {path}: No such file"
                        )
                    )
                    return None
                read_stdin = TextInput(text)
                continue
            if path in ("/dev/null",):
                sink = _discard
            elif path in ("/dev/stdout",):
                sink = io.write_out
            elif path in ("/dev/stderr",):
                sink = io.write_err
            else:
                try:
                    self.fs.write(full, "", append=operator == ">>")
                except FsError as exc:
                    io.write_err(
                        self.error(
                            f"{path}: {exc}" if self.style != "dash" else f"cannot create {path}: {exc}"
                        )
                    )
                    return None
                sink = self._file_sink(full)
            if operator == "2>":
                err = sink
            else:
                out = sink
        return IO(read_stdin, out, err)

    def _file_sink(self, path: str) -> Callable[[str], None]:
        def write(text: str) -> None:
            self.fs.write(path, text, append=True)

        return write

    def execute(self, argv: list[str], io: IO) -> int:
        BUILTINS, PROGRAMS, not_simulated = _commands()
        name = argv[0]
        builtin = BUILTINS.get(name)
        if builtin is not None:
            try:
                return builtin(self, argv, io)
            except FsError as exc:
                io.write_err(self.error(f"{name}: write error: {exc}"))
                return 1
        program = self.fs.find_program(name, self.env.get("PATH", ""), self.cwd)
        if program is None:
            if "/" in name:
                io.write_err(
                    self.error(f"{name}: No such file or directory")
                    if self.style != "dash"
                    else self.not_found(name)
                )
                return 127
            io.write_err(self.not_found(name))
            return 127
        implementation = PROGRAMS.get(posixpath.basename(program), not_simulated)
        try:
            return implementation(self, argv, io)
        except FsError as exc:  # its output went to a file that could not take it (a full disk)
            io.write_err(f"{argv[0]}: write error: {exc}\n")
            return 1

    # -- expansion --------------------------------------------------------------------------
    def variable(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return "1"
        if name == "0":
            return self.name
        if name == "#":
            return "0"
        return self.env.get(name, "")

    def _expand_text(self, text: str, before: int = 0) -> str:
        """$NAME, ${NAME}, ${NAME:-default}, $? $$ $# $0 in text; `before`: bytes the command's
        words already take (the result must fit beside them in the shell's memory)."""
        out, i = [], 0
        size = before + len(text)
        while i < len(text):
            char = text[i]
            if char != "$" or i + 1 >= len(text):
                out.append(char)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "{":
                end = text.find("}", i)
                if end == -1:
                    out.append(text[i:])
                    break
                inner = text[i + 2 : end]
                name, sep, default = inner.partition(":-")
                value = self.variable(name)
                value = value if value or not sep else default
                size += len(value)
                self.budget.need(size)
                out.append(value)
                i = end + 1
            elif nxt in "?$#0":
                out.append(self.variable(nxt))
                i += 2
            elif nxt.isalpha() or nxt == "_":
                j = i + 1
                while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                    j += 1
                value = self.variable(text[i + 1 : j])
                size += len(value)
                self.budget.need(size)
                out.append(value)
                i = j
            else:
                out.append(char)
                i += 1
        return "".join(out)

    def substitute(self, script: str) -> str:
        """$(...): run in a subshell, its output without trailing newlines."""
        sub = Shell(self.ctx, self.fs, self.name)
        sub.env, sub.cwd, sub.status = dict(self.env), self.cwd, self.status
        captured: list[str] = []
        held = self.budget.held
        try:
            with contextlib.suppress(ExitShell):
                sub.run(script, IO(_no_input, self._capture(captured), lambda _text: None))
        finally:
            self.budget.held = held  # the subshell's variables and output are gone with it
        return "".join(captured).rstrip("\n")

    def arithmetic(self, expression: str) -> str:
        """$((…)): integers, + - * / % and parentheses, variables by name (unset is 0)."""
        try:
            return str(evaluate(self._expand_text(expression), self.env))
        except BadExpression as exc:
            raise ExpansionError(f"{expression.strip()}: {exc}") from None

    def expand(self, word: Word, before: int = 0) -> list[str]:
        """One word -> its fields: variables, $(...), field splitting and globbing of bare parts.
        `before`: bytes the command's other words take (all must fit in the shell's memory)."""
        if len(word.parts) == 1:  # `echo tick`, `sleep 1`: a loop's words, each turn
            kind, text = word.parts[0]
            if kind == "lit" or (kind == "dq" and "$" not in text):
                return [text]
            if kind == "bare" and _PLAIN.fullmatch(text):
                self.budget.need(before + len(text))
                return [text]
        fields: list[str] = [""]
        size = before
        quoted = False
        glob = False
        for kind, text in word.parts:
            if kind == "lit":
                fields[-1] += text
                quoted = True
            elif kind == "dq":
                value = self._expand_text(text, size)
                size += len(value)
                fields[-1] += value
                quoted = True
            else:
                if kind == "sub":
                    value = self.substitute(text)
                elif kind == "arith":
                    value = self.arithmetic(text)
                else:
                    value = self._expand_text(text, size)
                size += len(value)
                self.budget.need(size)
                if kind == "bare" and text.startswith("~") and fields == [""]:
                    value = self.env.get("HOME", "/root") + value[1:]
                if kind == "bare" and any(c in text for c in "*?["):
                    glob = True
                pieces = value.split()
                if not pieces:
                    continue
                if value[:1].isspace():
                    fields.append("")
                fields[-1] += pieces[0]
                for piece in pieces[1:]:
                    fields.append(piece)
                if value[-1:].isspace():
                    fields.append("")
        fields = [f for f in fields if f] or ([""] if quoted else [])
        if glob:
            fields = [m for f in fields for m in (self._glob(f) or [f])]
        return fields

    def _glob(self, pattern: str) -> list[str]:
        directory, _, base = pattern.rpartition("/")
        root = (
            self.fs.resolve(self.cwd, directory or ".") if directory or not pattern.startswith("/") else "/"
        )
        if pattern.startswith("/") and not directory:
            root = "/"
        try:
            names = self.fs.listdir(root)
        except FsError:
            return []
        matched = [
            n
            for n in names
            if fnmatch.fnmatchcase(n, base) and (base.startswith(".") or not n.startswith("."))
        ]
        prefix = f"{directory}/" if directory or pattern.startswith("/") else ""
        return [prefix + n for n in matched]


@cache
def _commands():
    """The builtins and programs (their modules import this one: looked up once, when first run)."""
    from cluster.shell.commands import BUILTINS, PROGRAMS, not_simulated

    return BUILTINS, PROGRAMS, not_simulated


def _assignment(word: Word) -> bool:
    """NAME=value, the name unquoted at the start of the word."""
    kind, text = word.parts[0]
    name, sep, _ = text.partition("=")
    return kind == "bare" and bool(sep) and name.isidentifier()


def _discard(_text: str) -> None:
    return None

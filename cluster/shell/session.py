"""One `docker exec` in a simulated container: find the program, then run it, a script or an
interactive shell, and return the exit status the runtime would report."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from cluster.shell.commands import PROGRAMS, not_simulated
from cluster.shell.commands.shells import run_shell_program
from cluster.shell.context import ContainerContext
from cluster.shell.filesystem import FileSystem
from cluster.shell.interpreter import IO, ExitShell, Shell
from cluster.shell.limits import Budget, BudgetExceeded, OutOfMemory
from cluster.shell.stdin import TextInput
from cluster.shell.streams import InputStream, Killed
from cluster.shell.terminal import INTERRUPT, LineReader, crlf

STDOUT, STDERR = 1, 2
SHELLS = ("sh", "bash", "ash")

Write = Callable[[int, str], None]


def runtime_not_found(program: str) -> str:
    """Docker's answer when the program is not in the image (runc's exec error)."""
    if "/" in program:
        detail = f"stat {program}: no such file or directory"
    else:
        detail = "executable file not found in $PATH"
    return (
        "OCI runtime exec failed: exec failed: unable to start container process: "
        f'exec: "{program}": {detail}: unknown'
    )


def prompt(shell: Shell) -> str:
    home = shell.env.get("HOME", "/root")
    where = (
        "~" + shell.cwd[len(home) :] if shell.cwd == home or shell.cwd.startswith(home + "/") else shell.cwd
    )
    if shell.style == "bash":
        return f"root@{shell.ctx.hostname}:{where}# "
    if shell.style == "ash":
        return f"{where} # "
    return "# "


def _streams(ctx: ContainerContext, stdin: InputStream, write: Write) -> IO:
    if ctx.tty:  # one stream, terminal newlines
        return IO(lambda: "", lambda text: write(STDOUT, crlf(text)), lambda text: write(STDOUT, crlf(text)))
    return IO(
        TextInput(stream=stdin),  # whole, or a line at a time for `read`
        lambda text: write(STDOUT, text),
        lambda text: write(STDERR, text),
    )


def run_exec(ctx: ContainerContext, argv: list[str], stdin: InputStream, write: Write) -> int:
    """Run argv in the container; returns the exit status. Raises Closed if the caller left.
    The process runs on a budget (cluster/shell/limits.py): over it, it is killed (137)."""
    fs = FileSystem(ctx)
    path_var = dict(ctx.environment()).get("PATH", "")
    program = fs.find_program(argv[0], path_var, ctx.profile.workdir) if argv else None
    if program is None:
        message = runtime_not_found(argv[0] if argv else "")
        write(STDOUT, message + ("\r\n" if ctx.tty else "\n"))
        return 127
    budget = ctx.budget = Budget(ctx.memory_limit, stdin.check)

    def counted(channel: int, text: str) -> None:
        budget.output(len(text))
        write(channel, text)

    try:
        return _run_program(ctx, fs, argv, posixpath.basename(program), stdin, counted)
    except Killed as killed:
        return killed.status
    except BudgetExceeded as exceeded:
        if not isinstance(exceeded, OutOfMemory):  # the OOM killer says nothing
            write(STDOUT if ctx.tty else STDERR, stopped_message(exceeded, ctx.tty))
        return exceeded.status
    finally:
        fs.save()


def stopped_message(exceeded: BudgetExceeded, tty: bool) -> str:
    """Not what a real container would print (it would run on): said plainly."""
    return f"KubeSim stopped this command: {exceeded.message}" + ("\r\n" if tty else "\n")


def _run_program(ctx: ContainerContext, fs: FileSystem, argv: list[str], name: str, stdin, write) -> int:
    io = _streams(ctx, stdin, write)
    if name in SHELLS:
        if ctx.tty and len(argv) == 1:
            return interactive(Shell(ctx, fs, name), stdin, write)
        if not ctx.tty and len(argv) == 1:
            return _script_from_stdin(Shell(ctx, fs, name), stdin, io)
        return run_shell_program(ctx, fs, [name, *argv[1:]], io)
    shell = Shell(ctx, fs, "sh")
    try:
        return PROGRAMS.get(name, not_simulated)(shell, argv, io)
    except ExitShell as done:
        return done.status


def _script_from_stdin(shell: Shell, stdin: InputStream, io: IO) -> int:
    """`echo hostname | kubectl exec -i POD -- sh`: each line runs as it arrives."""
    quiet = IO(lambda: "", io.write_out, io.write_err)
    number = 0
    pending: list[str] = []
    try:
        while (line := stdin.read_line()) is not None:
            number += 1
            pending.append(line.decode("utf-8", "replace").rstrip("\r\n"))
            text = "\n".join(pending)
            if not shell.complete(text):
                continue  # a `while` read up to its `done`
            shell.line_number = number - len(pending) + 1
            pending = []
            _run_line(shell, text, quiet)
        if pending:
            _run_line(shell, "\n".join(pending), quiet)  # reports what is missing
    except ExitShell as done:
        return done.status
    return shell.status


def _run_line(shell: Shell, text: str, io: IO) -> None:
    shell.fs.reload()
    try:
        shell.run(text, io)
    finally:
        shell.fs.save()


class _TypedLines:
    """A command's stdin on the terminal: `read` takes the next line typed (echoed and edited);
    a command that reads to the end gets nothing (Ctrl+D is not waited for)."""

    def __init__(self, reader: LineReader) -> None:
        self.reader = reader

    def __call__(self) -> str:
        return ""

    def read_line(self) -> str | None:
        line = self.reader.read_line()
        return None if line is None or line is INTERRUPT else line + "\n"


def interactive(shell: Shell, stdin: InputStream, write: Write) -> int:
    """A shell on a terminal: prompt, read a line (echoed and edited), run it, until exit or Ctrl+D."""
    reader = LineReader(stdin, lambda text: write(STDOUT, text), editing=shell.style != "dash")
    terminal = lambda text: write(STDOUT, crlf(text))  # noqa: E731 (stdout and stderr alike)
    io = IO(_TypedLines(reader), terminal, terminal)
    number = 0
    pending: list[str] = []
    while True:
        write(STDOUT, "> " if pending else prompt(shell))  # PS2 inside an unfinished command
        line = reader.read_line()  # raises Closed when the caller leaves
        if line is INTERRUPT:
            shell.status = 130
            pending = []
            continue
        if line is None:
            if shell.style == "bash":
                write(STDOUT, "exit\r\n")
            else:
                write(STDOUT, "\r\n")
            return shell.status
        number += 1
        pending.append(line)
        line = "\n".join(pending)
        if not shell.complete(line):
            continue
        shell.line_number = number - len(pending) + 1
        pending = []
        shell.fs.reload()
        shell.budget.restart()  # each command line has its own steps and CPU time
        try:
            shell.run(line, io)
        except ExitShell as done:
            if shell.style == "bash":
                write(STDOUT, "exit\r\n")
            return done.status
        except BudgetExceeded as exceeded:
            if isinstance(exceeded, OutOfMemory):
                raise  # the shell itself held the memory: it is the process killed
            write(STDOUT, stopped_message(exceeded, tty=True))  # the line's job is killed
            shell.status = exceeded.status
        finally:
            shell.fs.save()

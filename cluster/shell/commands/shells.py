"""sh and bash run as programs (`sh -c '...'`, `cmd | sh`): a child shell with its own variables."""

from __future__ import annotations

import posixpath

from cluster.shell.commands.builtins import whole_commands
from cluster.shell.context import ContainerContext
from cluster.shell.filesystem import FileSystem
from cluster.shell.interpreter import IO, ExitShell, Shell


def run_shell_program(
    ctx: ContainerContext, fs: FileSystem, argv: list[str], io: IO, parent: Shell | None = None
) -> int:
    """`sh -c SCRIPT` runs SCRIPT; `sh FILE` runs the file; `sh` alone runs its standard input.
    A child of another shell inherits its variables and working directory."""
    name = posixpath.basename(argv[0])
    shell = Shell(ctx, fs, name)
    if parent is not None:
        shell.env, shell.cwd = dict(parent.env), parent.cwd
    args = argv[1:]
    held = shell.budget.held
    try:
        if args and args[0] == "-c":
            if len(args) < 2:
                io.write_err(f"{name}: -c: option requires an argument\n")
                return 2
            return shell.run(args[1], io)
        if args and not args[0].startswith("-"):
            path = fs.resolve(shell.cwd, args[0])
            if not fs.is_file(path):
                if shell.style == "bash":
                    io.write_err(f"{name}: {args[0]}: No such file or directory\n")
                elif shell.style == "dash":
                    io.write_err(f"{name}: 0: cannot open {args[0]}: No such file\n")
                else:
                    io.write_err(f"{name}: can't open '{args[0]}': No such file or directory\n")
                return 127 if name == "bash" else 2
            script = fs.read(path)
        else:
            script = io.read_stdin()
        for text, first_line in whole_commands(script):
            shell.line_number = first_line
            shell.run(text, io)
        return shell.status
    except ExitShell as done:
        return done.status
    finally:
        shell.budget.held = held  # the child's variables end with it


def sh(parent: Shell, argv: list[str], io: IO) -> int:
    return run_shell_program(parent.ctx, parent.fs, argv, io, parent)


PROGRAMS = {"sh": sh, "bash": sh, "ash": sh}

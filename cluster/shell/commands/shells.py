"""sh and bash run as programs (`sh -c '...'`, `cmd | sh`): a child shell with its own variables."""

from __future__ import annotations

import posixpath

from cluster.shell.interpreter import IO, ExitShell, Shell


def run_shell_program(parent_or_ctx, argv: list[str], io: IO, fs=None) -> int:
    """`sh -c SCRIPT` runs SCRIPT; `sh` alone runs its standard input as a script."""
    from cluster.shell.interpreter import Shell as _Shell

    if isinstance(parent_or_ctx, _Shell):
        ctx, fs, env, cwd = parent_or_ctx.ctx, parent_or_ctx.fs, parent_or_ctx.env, parent_or_ctx.cwd
    else:
        ctx, env, cwd = parent_or_ctx, None, None
    name = posixpath.basename(argv[0])
    shell = Shell(ctx, fs, name)
    if env is not None:
        shell.env, shell.cwd = dict(env), cwd
    args = argv[1:]
    try:
        if args and args[0] == "-c":
            if len(args) < 2:
                io.write_err(f"{name}: -c: option requires an argument\n")
                return 2
            return shell.run(args[1], io)
        if args and not args[0].startswith("-"):
            path = fs.resolve(shell.cwd, args[0])
            if not fs.is_file(path):
                io.write_err(
                    f"{name}: {args[0]}: No such file or directory\n"
                    if name == "bash"
                    else f"{name}: 0: cannot open {args[0]}: No such file\n"
                )
                return 127 if name == "bash" else 2
            script = fs.read(path)
        else:
            script = io.read_stdin()
        for number, line in enumerate(script.splitlines(), 1):
            shell.line_number = number
            shell.run(line, io)
        return shell.status
    except ExitShell as done:
        return done.status


def sh(parent: Shell, argv: list[str], io: IO) -> int:
    return run_shell_program(parent, argv, io)


PROGRAMS = {"sh": sh, "bash": sh, "ash": sh}

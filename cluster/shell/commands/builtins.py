"""Builtins of bash, dash and busybox ash: they run inside the shell, whatever $PATH holds."""

from __future__ import annotations

import re

from cluster.shell.commands import conditions
from cluster.shell.filesystem import FsError
from cluster.shell.interpreter import ExitShell, LoopControl, Shell


def _cd(sh, argv, io) -> int:
    target = argv[1] if len(argv) > 1 else sh.env.get("HOME", "/root")
    if target == "-":
        target = sh.env.get("OLDPWD", sh.cwd)
    path = sh.fs.resolve(sh.cwd, target)
    if not sh.fs.is_dir(path):
        reason = "Not a directory" if sh.fs.exists(path) else "No such file or directory"
        if sh.style == "bash":
            io.write_err(f"{sh.name}: cd: {target}: {reason}\n")
        elif sh.style == "dash":
            io.write_err(sh.error(f"cd: can't cd to {target}"))
        else:
            io.write_err(sh.error(f"cd: can't cd to {target}: {reason}"))
        return 1 if sh.style != "dash" else 2
    sh.env["OLDPWD"], sh.cwd = sh.cwd, path
    sh.env["PWD"] = path
    return 0


def _exit(sh, argv, io) -> int:
    status = sh.status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            io.write_err(sh.error(f"exit: {argv[1]}: numeric argument required"))
            status = 2
    raise ExitShell(status)


def _export(sh, argv, io) -> int:
    for arg in argv[1:]:
        name, sep, value = arg.partition("=")
        if sep:
            sh.set_variable(name, value)
    if len(argv) == 1:
        io.write_out("".join(f'declare -x {k}="{v}"\n' for k, v in sorted(sh.env.items())))
    return 0


def _unset(sh, argv, io) -> int:
    for name in argv[1:]:
        sh.unset_variable(name)
    return 0


def _pwd(sh, argv, io) -> int:
    io.write_out(sh.cwd + "\n")
    return 0


def _echo(sh, argv, io) -> int:
    args = argv[1:]
    newline, escapes = True, False
    while args and args[0] in ("-n", "-e", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        escapes = escapes or "e" in args[0]
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text = text.replace("\\n", "\n").replace("\\t", "\t")
    io.write_out(text + ("\n" if newline else ""))
    return 0


def _true(sh, argv, io) -> int:
    return 0


def _false(sh, argv, io) -> int:
    return 1


def _type(sh, argv, io) -> int:
    status = 0
    for name in argv[1:]:
        if name in BUILTINS:
            io.write_out(f"{name} is a shell builtin\n")
            continue
        found = sh.fs.find_program(name, sh.env.get("PATH", ""), sh.cwd)
        if found:
            io.write_out(f"{name} is {found}\n")
        else:
            io.write_err(f"{sh.name}: type: {name}: not found\n")
            status = 1
    return status


MAX_SOURCE_DEPTH = 16


def _source(sh, argv, io) -> int:
    if len(argv) < 2:
        return 0
    if sh.source_depth >= MAX_SOURCE_DEPTH:
        io.write_err(sh.error(f"{argv[1]}: too many levels of nested sourcing"))
        return 1
    try:
        script = sh.fs.read(sh.fs.resolve(sh.cwd, argv[1]))
    except FsError as exc:
        io.write_err(sh.error(f"{argv[1]}: {exc}"))
        return 1
    sh.source_depth += 1
    try:
        for text, _first_line in whole_commands(script):
            sh.run(text, io)
    finally:
        sh.source_depth -= 1
    return sh.status


def whole_commands(script: str):
    """(text, number of its first line) for each whole command of a script: a `while` over
    several lines is read to its `done`, as a shell reads its input."""
    pending: list[str] = []
    first = 1
    for number, line in enumerate(script.splitlines(), 1):
        if not pending:
            first = number
        pending.append(line)
        text = "\n".join(pending)
        if Shell.complete(text):
            yield text, first
            pending = []
    if pending:
        yield "\n".join(pending), first  # unfinished: running it reports the error


def _loop_control(sh, argv, io) -> int:
    """break [N] / continue [N]."""
    try:
        levels = int(argv[1]) if len(argv) > 1 else 1
    except ValueError:
        io.write_err(sh.error(f"{argv[0]}: {argv[1]}: numeric argument required"))
        return 1
    if sh.loop_depth == 0:
        if sh.style == "bash":
            io.write_err(f"{sh.name}: {argv[0]}: only meaningful in a `for', `while', or `until' loop\n")
        return 0
    raise LoopControl(max(1, min(levels, sh.loop_depth)), argv[0] == "continue")


def _read(sh, argv, io) -> int:
    """read [-r] [-p PROMPT] [NAME...]: one line of stdin, split on blanks into the names (the
    last takes the rest; REPLY without one); status 1 at the end of input."""
    args, raw = argv[1:], False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        option = args.pop(0)
        if option == "-r":
            raw = True
        elif option == "-p" and args:
            io.write_err(args.pop(0))
    reader = getattr(io.read_stdin, "read_line", None)
    if reader is not None:
        line = reader()
    else:  # a source read whole: its first line
        text = io.read_stdin()
        line = text.splitlines(keepends=True)[0] if text else None
    if line is None:
        return 1
    ended = line.endswith("\n")
    line = line[:-1] if ended else line
    if not raw:
        line = re.sub(r"\\(.)", r"\1", line)  # a backslash keeps the next character
    names = args or ["REPLY"]
    if names == ["REPLY"] and not args:
        sh.set_variable("REPLY", line)
        return 0 if ended else 1
    fields = line.split(None, len(names) - 1)
    for index, name in enumerate(names):
        value = fields[index] if index < len(fields) else ""
        sh.set_variable(name, value.rstrip() if index == len(names) - 1 else value)
    return 0 if ended else 1


BUILTINS = {
    "cd": _cd,
    "read": _read,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "pwd": _pwd,
    "echo": _echo,
    "true": _true,
    "false": _false,
    ":": _true,
    "type": _type,
    "source": _source,
    ".": _source,
    "break": _loop_control,
    "continue": _loop_control,
    **conditions.BUILTINS,
}

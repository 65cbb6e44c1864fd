"""Filters for pipes: grep, head, tail, wc, sort, uniq, tr-free basics; echo and printf as programs."""

from __future__ import annotations

import re

from cluster.shell import resumable
from cluster.shell.commands.builtins import _echo
from cluster.shell.filesystem import FsError
from cluster.shell.regex import PatternError, compile_pattern


def _input(sh, files: list[str], io, name: str) -> str | None:
    if not files:
        return io.read_stdin()
    chunks = []
    for path in files:
        try:
            chunks.append(sh.fs.read(sh.fs.resolve(sh.cwd, path)))
        except FsError as exc:
            io.write_err(f"{name}: {path}: {exc}\n")
            return None
    return "".join(chunks)


def _count_flag(args: list[str], default: int) -> tuple[int, list[str]]:
    count, rest, items = default, [], iter(args)
    for arg in items:
        if arg == "-n":
            count = int(next(items, default))
        elif arg.startswith("-n"):
            count = int(arg[2:])
        elif arg.startswith("-") and arg[1:].isdigit():
            count = int(arg[1:])
        else:
            rest.append(arg)
    return count, rest


def grep(sh, argv, io) -> int:
    flags, args = set(), []
    for arg in argv[1:]:
        if arg.startswith("-") and len(arg) > 1 and not args:
            flags.update(arg[1:])
        else:
            args.append(arg)
    if not args:
        io.write_err("Usage: grep [OPTION]... PATTERNS [FILE]...\n")
        return 2
    try:
        pattern = compile_pattern(
            args[0], extended="E" in flags, fixed="F" in flags, ignore_case="i" in flags
        )
    except PatternError as exc:
        io.write_err(f"grep: {exc}\n")
        return 2
    text = _input(sh, args[1:], io, "grep")
    if text is None:
        return 2
    lines = [
        (n, line)
        for n, line in enumerate(text.splitlines(), 1)
        if bool(pattern.search(line)) != ("v" in flags)
    ]
    if "c" in flags:
        io.write_out(f"{len(lines)}\n")
    elif "q" not in flags:
        io.write_out("".join(f"{n}:{line}\n" if "n" in flags else f"{line}\n" for n, line in lines))
    return 0 if lines else 1


def head(sh, argv, io) -> int:
    count, files = _count_flag(argv[1:], 10)
    text = _input(sh, files, io, "head")
    if text is None:
        return 1
    io.write_out("".join(text.splitlines(keepends=True)[:count]))
    return 0


def tail(sh, argv, io) -> int:
    count, files = _count_flag([a for a in argv[1:] if a != "-f"], 10)
    text = _input(sh, files, io, "tail")
    if text is None:
        return 1
    io.write_out("".join(text.splitlines(keepends=True)[-count:] if count else []))
    if "-f" in argv[1:] and files and resumable.current() is not None:
        resumable.pause(resumable.FOREVER)  # follows a file nobody else appends to: waits for good
    return 0


def wc(sh, argv, io) -> int:
    flags = {c for a in argv[1:] if a.startswith("-") for c in a[1:]} or {"l", "w", "c"}
    files = [a for a in argv[1:] if not a.startswith("-")]
    text = _input(sh, files, io, "wc")
    if text is None:
        return 1
    counts = {"l": text.count("\n"), "w": len(text.split()), "c": len(text.encode())}
    numbers = [counts[f] for f in "lwc" if f in flags]
    width = 1 if len(numbers) == 1 else 7
    line = " ".join(f"{n:>{width}}" for n in numbers)
    io.write_out(line + (f" {files[0]}" if files else "") + "\n")
    return 0


def sort(sh, argv, io) -> int:
    files = [a for a in argv[1:] if not a.startswith("-")]
    text = _input(sh, files, io, "sort")
    if text is None:
        return 2
    lines = sorted(text.splitlines(), reverse="-r" in argv)
    io.write_out("".join(f"{line}\n" for line in lines))
    return 0


def uniq(sh, argv, io) -> int:
    text = io.read_stdin()
    out, last = [], None
    for line in text.splitlines():
        if line != last:
            out.append(line + "\n")
        last = line
    io.write_out("".join(out))
    return 0


def printf(sh, argv, io) -> int:
    if len(argv) < 2:
        io.write_err("printf: usage: printf [-v var] format [arguments]\n")
        return 2
    text = argv[1].replace("\\n", "\n").replace("\\t", "\t")
    values = argv[2:]
    io.write_out(re.sub(r"%[sd]", lambda _m: values.pop(0) if values else "", text))
    return 0


PROGRAMS = {
    "grep": grep,
    "head": head,
    "tail": tail,
    "wc": wc,
    "sort": sort,
    "uniq": uniq,
    "echo": _echo,
    "printf": printf,
}

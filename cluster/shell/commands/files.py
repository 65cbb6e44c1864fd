"""ls, cat, mkdir, touch, rm, rmdir, cp, mv: the container's files (writes go to the overlay)."""

from __future__ import annotations

import posixpath

from cluster.shell.filesystem import FsError

# The image layers' timestamp as `ls -l` shows it (images are built, not written at run time).
IMAGE_TIME = "Oct  7 17:35"
LAYER_TIME = "Dec  1 00:00"
WIDTH = 80


def _flags_and_args(argv: list[str]) -> tuple[set[str], list[str]]:
    flags, args = set(), []
    for arg in argv[1:]:
        if arg.startswith("--") and not args:
            continue  # long options (--color=auto, --all) change nothing shown here
        if arg.startswith("-") and len(arg) > 1 and not args:
            flags.update(arg[1:])
        else:
            args.append(arg)
    return flags, args


def _mode(sh, path: str) -> str:
    if sh.fs.link_target(path):
        return "lrwxrwxrwx"
    if sh.fs.is_dir(path):
        return "drwxrwxrwt" if path == "/tmp" else "drwxr-xr-x"
    if sh.fs.read(path).startswith("\x7fELF") or path.endswith(".sh"):
        return "-rwxr-xr-x"
    return "-rw-r--r--"


def _long_line(sh, path: str, name: str) -> str:
    mode = _mode(sh, path)
    links = 2 if mode.startswith("d") else 1
    when = LAYER_TIME if path in sh.fs.layer.files or path in sh.fs.layer.dirs else IMAGE_TIME
    target = sh.fs.link_target(path)
    shown = f"{name} -> {target}" if target else name
    return f"{mode} {links} root root {sh.fs.size(path):>5} {when} {shown}"


def _columns(names: list[str]) -> str:
    """GNU ls on a terminal: names in columns, top to bottom, as many as fit in 80 columns."""
    if not names:
        return ""
    for rows in range(1, len(names) + 1):
        cols = -(-len(names) // rows)
        table = [names[c * rows : (c + 1) * rows] for c in range(cols)]
        widths = [max(len(n) for n in col) + 2 for col in table]
        if sum(widths) - 2 <= WIDTH:
            lines = []
            for r in range(rows):
                cells = [table[c][r].ljust(widths[c]) for c in range(cols) if r < len(table[c])]
                lines.append("".join(cells).rstrip())
            return "\n".join(lines) + "\n"
    return "\n".join(names) + "\n"


def ls(sh, argv, io) -> int:
    flags, args = _flags_and_args(argv)
    status = 0
    targets = args or ["."]
    out: list[str] = []
    for index, arg in enumerate(targets):
        path = sh.fs.resolve(sh.cwd, arg)
        if not sh.fs.exists(path):
            io.write_err(f"ls: cannot access '{arg}': No such file or directory\n")
            status = 2
            continue
        if not sh.fs.is_dir(path) or "d" in flags:
            out.append(_long_line(sh, path, arg) + "\n" if "l" in flags else arg + "\n")
            continue
        names = sh.fs.listdir(path)
        if "a" in flags:
            names = [".", "..", *names]
        elif "A" not in flags:
            names = [n for n in names if not n.startswith(".")]
        if len(targets) > 1:
            out.append(("\n" if index else "") + f"{arg}:\n")
        if "l" in flags:
            out.append(f"total {4 * len(names)}\n")
            out += [
                _long_line(sh, posixpath.join(path, n) if n not in (".", "..") else path, n) + "\n"
                for n in names
            ]
        elif sh.ctx.tty and "1" not in flags:
            out.append(_columns(names))
        else:
            out += [n + "\n" for n in names]
    io.write_out("".join(out))
    return status


def cat(sh, argv, io) -> int:
    _flags, args = _flags_and_args(argv)
    if not args or args == ["-"]:
        io.write_out(io.read_stdin())
        return 0
    status = 0
    for arg in args:
        try:
            io.write_out(sh.fs.read(sh.fs.resolve(sh.cwd, arg)))
        except FsError as exc:
            io.write_err(f"cat: {arg}: {exc}\n")
            status = 1
    return status


def mkdir(sh, argv, io) -> int:
    flags, args = _flags_and_args(argv)
    if not args:
        io.write_err("mkdir: missing operand\nTry 'mkdir --help' for more information.\n")
        return 1
    status = 0
    for arg in args:
        path = sh.fs.resolve(sh.cwd, arg)
        try:
            if "p" in flags:
                parts = path.strip("/").split("/")
                for depth in range(1, len(parts) + 1):
                    current = "/" + "/".join(parts[:depth])
                    if not sh.fs.is_dir(current):
                        sh.fs.mkdir(current)
            else:
                sh.fs.mkdir(path)
        except FsError as exc:
            io.write_err(f"mkdir: cannot create directory '{arg}': {exc}\n")
            status = 1
    return status


def touch(sh, argv, io) -> int:
    _flags, args = _flags_and_args(argv)
    if not args:
        io.write_err("touch: missing file operand\nTry 'touch --help' for more information.\n")
        return 1
    status = 0
    for arg in args:
        path = sh.fs.resolve(sh.cwd, arg)
        try:
            if not sh.fs.exists(path):
                sh.fs.write(path, "")
        except FsError as exc:
            io.write_err(f"touch: cannot touch '{arg}': {exc}\n")
            status = 1
    return status


def rm(sh, argv, io) -> int:
    flags, args = _flags_and_args(argv)
    if not args:
        io.write_err("rm: missing operand\nTry 'rm --help' for more information.\n")
        return 1
    status = 0
    for arg in args:
        path = sh.fs.resolve(sh.cwd, arg)
        if not sh.fs.exists(path):
            if "f" not in flags:
                io.write_err(f"rm: cannot remove '{arg}': No such file or directory\n")
                status = 1
            continue
        if sh.fs.is_dir(path) and not ({"r", "R"} & flags):
            io.write_err(f"rm: cannot remove '{arg}': Is a directory\n")
            status = 1
            continue
        sh.fs.remove(path, recursive=True)
    return status


def rmdir(sh, argv, io) -> int:
    _flags, args = _flags_and_args(argv)
    status = 0
    for arg in args:
        try:
            sh.fs.rmdir(sh.fs.resolve(sh.cwd, arg))
        except FsError as exc:
            io.write_err(f"rmdir: failed to remove '{arg}': {exc}\n")
            status = 1
    return status


def _copy(sh, argv, io, move: bool) -> int:
    _flags, args = _flags_and_args(argv)
    name = "mv" if move else "cp"
    if len(args) < 2:
        io.write_err(f"{name}: missing destination file operand after '{args[0] if args else ''}'\n")
        return 1
    source, dest = sh.fs.resolve(sh.cwd, args[0]), sh.fs.resolve(sh.cwd, args[1])
    if sh.fs.is_dir(dest):
        dest = posixpath.join(dest, posixpath.basename(source))
    try:
        sh.fs.write(dest, sh.fs.read(source))
        if move:
            sh.fs.remove(source)
    except FsError as exc:
        io.write_err(f"{name}: cannot stat '{args[0]}': {exc}\n")
        return 1
    return 0


def cp(sh, argv, io) -> int:
    return _copy(sh, argv, io, move=False)


def mv(sh, argv, io) -> int:
    return _copy(sh, argv, io, move=True)


PROGRAMS = {
    "ls": ls,
    "cat": cat,
    "mkdir": mkdir,
    "touch": touch,
    "rm": rm,
    "rmdir": rmdir,
    "cp": cp,
    "mv": mv,
}

"""tar: real tar archives (Python's tarfile) of the container's files, what `kubectl cp` runs.

`kubectl cp FILE POD:DIR` pipes an archive into `tar -xmf - -C DIR`; `kubectl cp POD:PATH FILE`
reads `tar cf - PATH`. The streams carry bytes as text with surrogate escapes (the exec session
decodes and encodes them so), so a file's bytes come back exactly as they went in. GNU tar
(Debian, Ubuntu, nginx, …) and busybox tar (busybox, alpine) differ in their messages and exit
statuses; both are followed. Members are bounded by the writable layer's size (`No space left on
device`) and the process's memory; symbolic links and devices are not kept in a writable layer,
and tar says so.
"""

from __future__ import annotations

import io as _io
import posixpath
import tarfile

from cluster.shell.filesystem import FsError

# Image files and what tar writes have this modification time (the layers' build time).
MTIME = 1_696_700_100
ENCODING = "utf-8"


def to_bytes(text: str) -> bytes:
    return text.encode(ENCODING, "surrogateescape")


def to_text(data: bytes) -> str:
    return data.decode(ENCODING, "surrogateescape")


class TarError(Exception):
    """Fatal: tar stops (GNU's `Error is not recoverable`)."""


class _Options:
    def __init__(self) -> None:
        self.mode = ""  # c, x or t
        self.file = ""
        self.directory = ""
        self.verbose = False
        self.gzip = False
        self.paths: list[str] = []


def _parse(argv: list[str]) -> _Options:
    options = _Options()
    args = list(argv[1:])
    if args and not args[0].startswith("-"):  # old style: `tar cf - PATH`
        args[0] = "-" + args[0]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            if name == "file":
                options.file = value
            elif name == "directory":
                options.directory = value
            elif name in ("create", "extract", "list"):
                options.mode = name[0] if name != "list" else "t"
            elif name == "gzip":
                options.gzip = True
            elif name == "verbose":
                options.verbose = True
            continue  # --no-same-owner, --no-same-permissions, --touch: nothing to keep here
        if arg.startswith("-") and len(arg) > 1:
            for position, letter in enumerate(arg[1:]):
                if letter in "cxt":
                    options.mode = letter
                elif letter == "v":
                    options.verbose = True
                elif letter == "z":
                    options.gzip = True
                elif letter in "fC":
                    rest = arg[position + 2 :]
                    value = rest if rest else (args[index] if index < len(args) else "")
                    if not rest:
                        index += 1
                    if letter == "f":
                        options.file = value
                    else:
                        options.directory = value
                    break
            continue
        options.paths.append(arg)
    return options


class _Tar:
    def __init__(self, sh, io) -> None:
        self.sh, self.io = sh, io
        self.busybox = sh.ctx.profile.base.busybox
        self.failed = False
        self.warned = False

    # -- messages, as each tar words them ----------------------------------------------------
    def leading_slash(self) -> None:
        if not self.warned:
            self.warned = True
            if self.busybox:
                self.io.write_err("tar: removing leading '/' from member names\n")
            else:
                self.io.write_err("tar: Removing leading `/' from member names\n")

    def cannot(self, what: str, name: str, err: str) -> None:
        self.failed = True
        if self.busybox:
            self.io.write_err(
                f"tar: {name}: {err}\n" if what == "stat" else f"tar: can't open '{name}': {err}\n"
            )
        else:
            words = "Cannot stat" if what == "stat" else "Cannot open"
            self.io.write_err(f"tar: {name}: {words}: {err}\n")

    def status(self) -> int:
        if not self.failed:
            return 0
        if self.busybox:
            return 1
        self.io.write_err("tar: Exiting with failure status due to previous errors\n")
        return 2

    def fatal(self, message: str) -> int:
        self.io.write_err(f"tar: {message}\n")
        if not self.busybox:
            self.io.write_err("tar: Error is not recoverable: exiting now\n")
        return 2 if not self.busybox else 1

    # -- creating --------------------------------------------------------------------------
    def _member_name(self, name: str) -> str:
        stripped = name.lstrip("/")
        if stripped != name:
            self.leading_slash()
        return posixpath.normpath(stripped) if stripped else "."

    def _add(self, archive: tarfile.TarFile, path: str, name: str) -> None:
        fs = self.sh.fs
        self.sh.budget.step()
        info = tarfile.TarInfo(name)
        info.mtime, info.uname, info.gname = MTIME, "root", "root"
        target = fs.link_target(path)
        if target:
            info.type, info.linkname, info.mode = tarfile.SYMTYPE, target, 0o777
            archive.addfile(info)
        elif fs.is_dir(path):
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            archive.addfile(info)
            for child in fs.listdir(path):
                self._add(archive, posixpath.join(path, child), posixpath.join(name, child))
        else:
            data = to_bytes(fs.read(path))
            self.sh.budget.need(len(data))
            executable = data.startswith(b"\x7fELF") or path.endswith(".sh")
            info.size, info.mode = len(data), 0o755 if executable else 0o644
            archive.addfile(info, _io.BytesIO(data))
        if self.verbose_to is not None:
            self.verbose_to(name + ("/" if info.isdir() else "") + "\n")

    def create(self, options: _Options) -> int:
        if not options.paths:
            if self.busybox:
                return self.fatal("empty archive")
            return self.fatal("Cowardly refusing to create an empty archive")
        buffer = _io.BytesIO()
        fmt = tarfile.USTAR_FORMAT if self.busybox else tarfile.GNU_FORMAT
        with tarfile.open(fileobj=buffer, mode="w:gz" if options.gzip else "w", format=fmt) as archive:
            for arg in options.paths:
                path = self.sh.fs.resolve(self.base, arg)
                if not self.sh.fs.exists(path):  # busybox stats first; GNU names the member first
                    if not self.busybox:
                        self._member_name(arg)
                    self.cannot("stat", arg, "No such file or directory")
                    continue
                self._add(archive, path, self._member_name(arg))
        data = buffer.getvalue()
        self.sh.budget.need(len(data))
        if options.file in ("", "-"):
            self.io.write_out(to_text(data))
        else:
            try:
                self.sh.fs.write(self.sh.fs.resolve(self.sh.cwd, options.file), to_text(data))
            except FsError as err:
                self.cannot("open", options.file, str(err))
        return self.status()

    # -- reading ---------------------------------------------------------------------------
    def _archive_bytes(self, options: _Options) -> bytes:
        if options.file in ("", "-"):
            return to_bytes(self.io.read_stdin())
        try:
            return to_bytes(self.sh.fs.read(self.sh.fs.resolve(self.sh.cwd, options.file)))
        except FsError as err:
            raise TarError(
                f"can't open '{options.file}': {err}"
                if self.busybox
                else f"{options.file}: Cannot open: {err}"
            ) from None

    def _members(self, data: bytes):
        if not data:
            return []
        try:
            with tarfile.open(fileobj=_io.BytesIO(data), mode="r:*") as archive:
                return [(member, archive.extractfile(member)) for member in archive.getmembers()]
        except (tarfile.TarError, EOFError, OSError):
            raise TarError(
                "invalid tar magic" if self.busybox else "This does not look like a tar archive"
            ) from None

    def extract(self, options: _Options, listing: bool) -> int:
        data = self._archive_bytes(options)
        self.sh.budget.need(len(data))
        if options.directory and not self.sh.fs.is_dir(self.base):
            missing = options.directory
            if self.busybox:
                return self.fatal(f"can't change directory to '{missing}': No such file or directory")
            return self.fatal(f"{missing}: Cannot open: No such file or directory")
        members = self._members(data)
        for member, content in members:
            self.sh.budget.step()
            name = self._member_name(member.name)
            if listing or options.verbose:
                self.io.write_out(member.name + "\n")
            if listing:
                continue
            path = self.sh.fs.resolve(self.base, name)
            try:
                self._extract_one(member, content, path, name)
            except FsError as err:
                self.cannot("open", name, str(err))
        return self.status()

    def _extract_one(self, member: tarfile.TarInfo, content, path: str, name: str) -> None:
        fs = self.sh.fs
        self._parents(path)
        if member.isdir():
            if not fs.is_dir(path):
                fs.mkdir(path)
        elif member.isfile():
            if fs.is_dir(path):
                raise FsError("Is a directory")
            fs.write(path, to_text(content.read() if content is not None else b""))
        else:  # a link, a device, a FIFO: nothing a writable layer keeps here
            self.failed = True
            self.io.write_err(
                f"tar: {name}: KubeSim keeps only files and directories in a container; skipped\n"
            )

    def _parents(self, path: str) -> None:
        parts = posixpath.dirname(path).strip("/").split("/")
        for depth in range(1, len(parts) + 1):
            current = "/" + "/".join(parts[:depth])
            if current != "/" and not self.sh.fs.is_dir(current):
                self.sh.fs.mkdir(current)

    def run(self, options: _Options) -> int:
        self.base = self.sh.fs.resolve(self.sh.cwd, options.directory) if options.directory else self.sh.cwd
        self.verbose_to = self.io.write_err if options.verbose and options.file in ("", "-") else None
        if options.verbose and self.verbose_to is None:
            self.verbose_to = self.io.write_out
        try:
            if options.mode == "c":
                return self.create(options)
            return self.extract(options, listing=options.mode == "t")
        except TarError as err:
            return self.fatal(str(err))


def tar(sh, argv: list[str], io) -> int:
    options = _parse(argv)
    if not options.mode:
        if sh.ctx.profile.base.busybox:
            io.write_err(
                "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\n"
                "Usage: tar c|x|t [-ZzJjahmvokO] [-f TARFILE] [-C DIR] [-T FILE] [-X FILE] "
                "[LONGOPT]... [FILE]...\n"
            )
            return 1
        io.write_err(
            "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n"
            "Try 'tar --help' or 'tar --usage' for more information.\n"
        )
        return 2
    return _Tar(sh, io).run(options)


PROGRAMS = {"tar": tar}

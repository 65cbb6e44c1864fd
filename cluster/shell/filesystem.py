"""The container's file view: the image's layers, its writable overlay, the files the kubelet
mounts (/etc/hostname, /etc/hosts, /etc/resolv.conf) and its PersistentVolumes' files, which are
kept with each volume (cluster/shell/volumes.py)."""

from __future__ import annotations

import posixpath

from django.conf import settings

from cluster.shell import overlay, volumes
from cluster.shell.context import ContainerContext
from cluster.shell.limits import effective
from cluster.shell.overlay import Overlay
from cluster.shell.rootfs import Tree, rootfs_for


class FsError(Exception):
    """An errno-style failure; the message is strerror (`No such file or directory`)."""


NOENT = "No such file or directory"
ISDIR = "Is a directory"
NOTDIR = "Not a directory"
EXISTS = "File exists"
NOTEMPTY = "Directory not empty"
NOSPC = "No space left on device"


def clean(path: str) -> str:
    """An absolute, normalized path (a relative one is taken from /): every walk up ends at /."""
    path = posixpath.normpath("/" + path)
    return "/" + path.lstrip("/")


class FileSystem:
    def __init__(self, ctx: ContainerContext) -> None:
        self.tree: Tree = rootfs_for(ctx.image)
        self.ctx = ctx
        self.layer: Overlay = self._load()
        self.saved = self.layer.snapshot()
        # $PATH lookups by (name, PATH, cwd): a loop runs the same programs every turn. Any change
        # to the files forgets them all.
        self.programs: dict[tuple[str, str, str], str | None] = {}
        # The writable layer counts as the container's ephemeral storage.
        self.room = effective(ctx.storage_limit, settings.KUBESIM_SHELL_STORAGE_BYTES)
        self.used = self.layer.size()
        self.mounted = {
            "/etc/hostname": ctx.hostname + "\n",
            "/etc/hosts": ctx.hosts_file(),
            "/etc/resolv.conf": ctx.resolv_conf(),
        }
        # configMap and secret volumes: their directories and files, mounted by the kubelet.
        self.mount_dirs: set[str] = set()
        if ctx.volumes is not None:
            self.mounted.update(ctx.volumes.files)
            for directory in ctx.volumes.directories:
                self._mount_point(directory)
        for mount in ctx.persistent:
            self._mount_point(mount.path)

    def _mount_point(self, directory: str) -> None:
        while directory not in ("/", "") and directory != posixpath.dirname(directory):
            self.mount_dirs.add(directory)  # the kubelet creates a mount point's parents
            directory = posixpath.dirname(directory)

    def _load(self) -> Overlay:
        layer = overlay.load(self.ctx.cluster, self.ctx.container_id)
        if self.ctx.persistent:
            volumes.merge_into(layer, self.ctx.cluster, self.ctx.persistent)
        return layer

    def reload(self) -> None:
        """Another session (or another pod on the same volume) may have written since: read again."""
        self.layer = self._load()
        self.saved = self.layer.snapshot()
        self.used = self.layer.size()
        self.programs.clear()

    def save(self) -> None:
        if self.layer.snapshot() != self.saved:
            if self.ctx.persistent:
                volumes.split_and_save(
                    self.layer, self.ctx.cluster, self.ctx.container_id, self.ctx.persistent
                )
            else:
                overlay.save(self.ctx.cluster, self.ctx.container_id, self.layer)
            self.saved = self.layer.snapshot()

    @staticmethod
    def resolve(cwd: str, path: str) -> str:
        return clean(posixpath.join(cwd, path)) if path else cwd

    def _gone(self, path: str) -> bool:
        path = clean(path)
        while path != "/":  # one step up per component of a clean path
            if path in self.layer.deleted:
                return True
            path = posixpath.dirname(path)
        return False

    def is_dir(self, path: str) -> bool:
        if path in self.layer.dirs or path in self.mount_dirs:
            return True
        return path in self.tree.dirs and not self._gone(path)

    def is_file(self, path: str) -> bool:
        if path in self.layer.files:
            return True
        if self._gone(path):
            return False
        return path in self.tree.files or path in self.tree.links or path in self.mounted

    def exists(self, path: str) -> bool:
        return self.is_dir(path) or self.is_file(path)

    def link_target(self, path: str) -> str | None:
        return None if path in self.layer.files or self._gone(path) else self.tree.links.get(path)

    def read(self, path: str) -> str:
        if self.is_dir(path):
            raise FsError(ISDIR)
        if path in self.layer.files:
            return self.layer.files[path]
        if not self.is_file(path):
            raise FsError(NOENT)
        if path in self.mounted:
            return self.mounted[path]
        if path in self.tree.links:
            return ""  # /dev/stdout: the container's log, not a file
        return self.tree.files[path]

    def write(self, path: str, content: str, append: bool = False) -> None:
        parent = posixpath.dirname(path)
        if not self.is_dir(parent):
            raise FsError(NOENT if not self.exists(parent) else NOTDIR)
        if self.is_dir(path):
            raise FsError(ISDIR)
        before = self.read(path) if append and self.is_file(path) else ""
        grows = len(before) + len(content) - len(self.layer.files.get(path, ""))
        if grows > 0 and self.used + grows > self.room:
            raise FsError(NOSPC)
        self.used += grows
        if path not in self.layer.files:
            self.programs.clear()
        self.layer.files[path] = before + content
        self.layer.deleted.discard(path)

    def mkdir(self, path: str) -> None:
        if self.exists(path):
            raise FsError(EXISTS)
        if not self.is_dir(posixpath.dirname(path)):
            raise FsError(NOENT)
        self.programs.clear()
        self.layer.dirs.add(path)
        self.layer.deleted.discard(path)

    def listdir(self, path: str) -> list[str]:
        if not self.is_dir(path):
            raise FsError(NOTDIR if self.exists(path) else NOENT)
        prefix = path.rstrip("/") + "/"
        names = set()
        candidates = [
            *self.tree.dirs,
            *self.tree.files,
            *self.tree.links,
            *self.mounted,
            *self.mount_dirs,
            *self.layer.dirs,
            *self.layer.files,
        ]
        for candidate in candidates:
            if candidate != path and candidate.startswith(prefix) and self.exists(candidate):
                names.add(candidate[len(prefix) :].split("/", 1)[0])
        return sorted(names)

    def remove(self, path: str, recursive: bool = False) -> None:
        if not self.exists(path):
            raise FsError(NOENT)
        self.programs.clear()
        if self.is_dir(path):
            if not recursive:
                raise FsError(ISDIR)
            for child in self.listdir(path):
                self.remove(posixpath.join(path, child), recursive=True)
            self.layer.dirs.discard(path)
        self.used -= len(self.layer.files.pop(path, ""))
        if path in self.tree.dirs or path in self.tree.files or path in self.tree.links:
            self.layer.deleted.add(path)

    def rmdir(self, path: str) -> None:
        if not self.is_dir(path):
            raise FsError(NOTDIR if self.exists(path) else NOENT)
        if self.listdir(path):
            raise FsError(NOTEMPTY)
        self.remove(path, recursive=True)

    def size(self, path: str) -> int:
        if self.is_dir(path):
            return 4096
        if self.link_target(path):
            return len(self.link_target(path))
        return len(self.read(path).encode())

    def find_program(self, name: str, path_var: str, cwd: str = "/") -> str | None:
        """$PATH lookup as execvp does it; a name with a slash is a path (from cwd if relative)."""
        key = (name, path_var, cwd)
        if key not in self.programs:
            if len(self.programs) >= 256:  # a loop making up names: bounded memory
                self.programs.clear()
            self.programs[key] = self._find_program(name, path_var, cwd)
        return self.programs[key]

    def _find_program(self, name: str, path_var: str, cwd: str) -> str | None:
        if "/" in name:
            return name if self.is_file(self.resolve(cwd, name)) else None
        for directory in path_var.split(":"):
            candidate = self.resolve(cwd, posixpath.join(directory or ".", name))
            if self.is_file(candidate):
                return candidate
        return None

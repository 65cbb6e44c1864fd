"""The read-only image layers of a container: directories, files and links, built once per image."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cache

from cluster.shell.images_files import NGINX_LINKS
from cluster.shell.profiles import Profile, profile_for

_DIRS = [
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/local",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/share",
    "/var",
    "/var/cache",
    "/var/lib",
    "/var/log",
    "/var/run",
    "/var/tmp",
]

PASSWD_GNU = """root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
"""
PASSWD_BUSYBOX = """root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
nobody:x:65534:65534:nobody:/home:/bin/false
"""
# The users the images' Dockerfiles add (uid, gid), with their home and shell.
_IMAGE_USERS = {
    "nginx": "nginx:x:101:101:nginx user:/nonexistent:/bin/false\n",
    "redis": "redis:x:999:999::/home/redis:/usr/sbin/nologin\n",
    "mysql": "mysql:x:999:999::/var/lib/mysql:/bin/bash\n",
    "postgres": "postgres:x:999:999::/var/lib/postgresql:/bin/bash\n",
    "memcached": "memcache:x:11211:11211:memcache:/home/memcache:/usr/sbin/nologin\n",
    "curl": "curl_user:x:100:101:Linux User,,,:/home/curl_user:/sbin/nologin\n",
}
BINARY = "\x7fELF\x02\x01\x01\x00"  # what `cat` of a program shows first


@dataclass(slots=True)
class Tree:
    dirs: set[str] = field(default_factory=set)
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # path -> target

    def add_dir(self, path: str) -> None:
        while path not in self.dirs:
            self.dirs.add(path)
            if path == "/":
                return
            path = posixpath.dirname(path)

    def add_file(self, path: str, content: str) -> None:
        self.add_dir(posixpath.dirname(path))
        self.files[path] = content

    def add_link(self, path: str, target: str) -> None:
        self.add_dir(posixpath.dirname(path))
        self.links[path] = target


def _passwd(profile: Profile) -> str:
    text = PASSWD_BUSYBOX if profile.base.busybox else PASSWD_GNU
    return text + _IMAGE_USERS.get(profile.family, "")


def build(profile: Profile) -> Tree:
    tree = Tree()
    for directory in _DIRS:
        tree.add_dir(directory)
    for program, directory in profile.all_binaries().items():
        tree.add_file(f"{directory}/{program}", BINARY)
    if profile.base.os_release:
        tree.add_file("/etc/os-release", profile.base.os_release)
    if profile.base.name == "alpine":
        tree.add_file("/etc/alpine-release", "3.20.3\n")
    if profile.base.name == "debian":
        tree.add_file("/etc/debian_version", "12.7\n")
    tree.add_file("/etc/passwd", _passwd(profile))
    tree.add_file("/etc/group", "root:x:0:\n")
    shells = "/bin/sh\n" + ("/bin/bash\n" if "bash" in profile.all_binaries() else "")
    tree.add_file("/etc/shells", shells)
    for path, content in profile.files.items():
        if path.endswith("/"):
            tree.add_dir(path.rstrip("/"))
        else:
            tree.add_file(path, content)
    if profile.family == "nginx":
        for path, target in NGINX_LINKS.items():
            tree.add_link(path, target)
    tree.add_dir(profile.workdir)
    return tree


@cache
def rootfs_for(image: str) -> Tree:
    return build(profile_for(image))

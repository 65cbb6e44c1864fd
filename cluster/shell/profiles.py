"""What each image of the kubelet's catalog holds: its base OS, programs, environment,
working directory, processes and server (as the official images' Dockerfiles build them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from cluster.kubelet.images import lookup, split_reference
from cluster.shell.images_files import httpd_files, nginx_files, redis_files

_COREUTILS = (
    "cat",
    "chgrp",
    "chmod",
    "chown",
    "cp",
    "date",
    "dd",
    "df",
    "echo",
    "false",
    "ln",
    "ls",
    "mkdir",
    "mv",
    "pwd",
    "readlink",
    "rm",
    "rmdir",
    "sleep",
    "stty",
    "sync",
    "tar",
    "touch",
    "true",
    "uname",
    "bash",
    "sh",
    "grep",
    "sed",
    "hostname",
)
_USR_COREUTILS = (
    "basename",
    "cut",
    "dirname",
    "du",
    "env",
    "expr",
    "head",
    "id",
    "nproc",
    "printenv",
    "printf",
    "seq",
    "sort",
    "tail",
    "tee",
    "test",
    "tr",
    "tty",
    "uniq",
    "wc",
    "whoami",
    "xargs",
    "find",
)
# Busybox images have one binary; these applets are links to it.
_BUSYBOX_BIN = (
    "busybox",
    "cat",
    "chmod",
    "cp",
    "date",
    "dd",
    "df",
    "echo",
    "false",
    "grep",
    "hostname",
    "ln",
    "ls",
    "mkdir",
    "mv",
    "ping",
    "ps",
    "pwd",
    "rm",
    "rmdir",
    "sed",
    "sh",
    "sleep",
    "tar",
    "touch",
    "true",
    "uname",
)
_BUSYBOX_USR_BIN = (
    "basename",
    "cut",
    "dirname",
    "du",
    "env",
    "expr",
    "find",
    "head",
    "id",
    "nproc",
    "printenv",
    "printf",
    "seq",
    "sort",
    "tail",
    "tee",
    "test",
    "top",
    "tr",
    "tty",
    "uniq",
    "uptime",
    "vi",
    "wc",
    "wget",
    "whoami",
    "xargs",
    "nslookup",
)


@dataclass(frozen=True, slots=True)
class Base:
    """A base OS layer: its release file and the programs in $PATH (program -> directory)."""

    name: str
    os_release: str
    binaries: dict[str, str]
    shell_style: str  # "dash": `sh: 1: foo: not found`; "ash": `sh: foo: not found`; "bash"

    @property
    def busybox(self) -> bool:
        return self.shell_style == "ash"


def _gnu(*extra: str) -> dict[str, str]:
    binaries = {b: "/bin" for b in _COREUTILS} | {b: "/usr/bin" for b in _USR_COREUTILS}
    return binaries | {b: "/usr/bin" for b in ("getent", *extra)}  # getent: glibc's, in every GNU image


def _busybox(*extra: str) -> dict[str, str]:
    binaries = {b: "/bin" for b in _BUSYBOX_BIN} | {b: "/usr/bin" for b in _BUSYBOX_USR_BIN}
    return binaries | {b: "/usr/bin" for b in extra}


DEBIAN_RELEASE = """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
"""
UBUNTU_RELEASE = """PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
UBUNTU_CODENAME=noble
"""
CENTOS_RELEASE = """NAME="CentOS Linux"
VERSION="7 (Core)"
ID="centos"
ID_LIKE="rhel fedora"
VERSION_ID="7"
PRETTY_NAME="CentOS Linux 7 (Core)"
ANSI_COLOR="0;31"
CPE_NAME="cpe:/o:centos:centos:7"
HOME_URL="https://www.centos.org/"
BUG_REPORT_URL="https://bugs.centos.org/"
"""
ORACLE_RELEASE = """NAME="Oracle Linux Server"
VERSION="9.4"
ID="ol"
ID_LIKE="fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Oracle Linux Server 9.4"
ANSI_COLOR="0;31"
HOME_URL="https://linux.oracle.com/"
"""
ALPINE_RELEASE = """NAME="Alpine Linux"
ID=alpine
VERSION_ID=3.20.3
PRETTY_NAME="Alpine Linux v3.20"
HOME_URL="https://alpinelinux.org/"
BUG_REPORT_URL="https://gitlab.alpinelinux.org/alpine/aports/-/issues"
"""

_APT = ("apt", "apt-get", "dpkg", "which", "clear")
DEBIAN = Base("debian", DEBIAN_RELEASE, _gnu(*_APT), "dash")
UBUNTU = Base("ubuntu", UBUNTU_RELEASE, _gnu(*_APT, "ps", "top", "free"), "dash")
CENTOS = Base(
    "centos", CENTOS_RELEASE, _gnu("ps", "top", "free", "curl", "yum", "rpm", "which", "clear"), "bash"
)
ORACLE = Base("oracle", ORACLE_RELEASE, _gnu("microdnf", "rpm"), "bash")
ALPINE = Base("alpine", ALPINE_RELEASE, _busybox("apk", "which", "clear"), "ash")
BUSYBOX = Base("busybox", "", _busybox("which", "clear"), "ash")

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True, slots=True)
class Process:
    pid: int
    user: str
    command: str


@dataclass(frozen=True, slots=True)
class Profile:
    """One image as a container sees it."""

    family: str  # nginx, httpd, redis, mysql, tomcat, python, busybox, alpine, centos, ubuntu, pause
    version: str  # the software's version for this tag (nginx 1.25.5)
    base: Base
    binaries: dict[str, str]  # the image's own programs -> directory, on top of the base's
    env: tuple[tuple[str, str], ...]  # the image's ENV lines, in Dockerfile order
    workdir: str = "/"
    processes: tuple[Process, ...] = ()
    port: int = 0  # the server it listens on (0: none)
    files: dict[str, str] = field(default_factory=dict)  # path -> content (the image's own files)

    def all_binaries(self) -> dict[str, str]:
        return {**self.base.binaries, **self.binaries}

    @property
    def path(self) -> str:
        return dict(self.env).get("PATH", DEFAULT_PATH)


def _version(repository: str, tag: str, latest: str) -> str:
    """The software version the catalogue gives the tag (docs/images.md); `latest`'s otherwise."""
    image = lookup(f"{repository}:{tag}")
    return image.version if image is not None and image.version else latest


def _alpine(repository: str, tag: str) -> bool:
    image = lookup(f"{repository}:{tag}")
    return image.base == "alpine" if image is not None else "alpine" in tag


def _nginx(tag: str) -> Profile:
    version = _version("nginx", tag, "1.29.0")
    alpine = _alpine("nginx", tag)
    env = (
        ("PATH", DEFAULT_PATH),
        ("NGINX_VERSION", version),
        ("NJS_VERSION", "0.8.7"),
        ("PKG_RELEASE", "1" if alpine else "1~bookworm"),
    )
    processes = (
        Process(1, "root", "nginx: master process nginx -g daemon off;"),
        Process(29, "nginx", "nginx: worker process"),
        Process(30, "nginx", "nginx: worker process"),
    )
    programs = {"nginx": "/usr/sbin", "curl": "/usr/bin"}
    return Profile(
        "nginx",
        version,
        ALPINE if alpine else DEBIAN,
        programs,
        env,
        "/",
        processes,
        80,
        nginx_files(version, entrypoint=tuple(int(p) for p in version.split(".")[:2]) >= (1, 19)),
    )


def _httpd(tag: str) -> Profile:
    version = _version("httpd", tag, "2.4.63")
    env = (
        ("PATH", "/usr/local/apache2/bin:" + DEFAULT_PATH),
        ("HTTPD_PREFIX", "/usr/local/apache2"),
        ("HTTPD_VERSION", version),
    )
    processes = (
        Process(1, "root", "httpd -DFOREGROUND"),
        *(Process(pid, "www-data", "httpd -DFOREGROUND") for pid in (8, 9, 10)),
    )
    programs = {"httpd": "/usr/local/apache2/bin", "apachectl": "/usr/local/apache2/bin"}
    base = ALPINE if _alpine("httpd", tag) else DEBIAN
    return Profile("httpd", version, base, programs, env, "/usr/local/apache2", processes, 80, httpd_files())


def _redis(tag: str) -> Profile:
    version = _version("redis", tag, "8.0.2")
    env = (
        ("PATH", DEFAULT_PATH),
        ("REDIS_VERSION", version),
        ("REDIS_DOWNLOAD_URL", f"http://download.redis.io/releases/redis-{version}.tar.gz"),
    )
    programs = {
        "redis-server": "/usr/local/bin",
        "redis-cli": "/usr/local/bin",
        "redis-benchmark": "/usr/local/bin",
        "docker-entrypoint.sh": "/usr/local/bin",
    }
    processes = (Process(1, "redis", "redis-server *:6379"),)
    base = ALPINE if _alpine("redis", tag) else DEBIAN
    return Profile("redis", version, base, programs, env, "/data", processes, 6379, redis_files())


def _mysql(tag: str) -> Profile:
    version = _version("mysql", tag, "9.3.0")
    env = (
        ("PATH", DEFAULT_PATH),
        ("GOSU_VERSION", "1.17"),
        ("MYSQL_MAJOR", version.rsplit(".", 1)[0]),
        ("MYSQL_VERSION", f"{version}-1.el9"),
        ("MYSQL_SHELL_VERSION", f"{version}-1.el9"),
    )
    programs = {
        "mysqld": "/usr/sbin",
        "mysql": "/usr/bin",
        "mysqladmin": "/usr/bin",
        "docker-entrypoint.sh": "/usr/local/bin",
    }
    processes = (Process(1, "mysql", "mysqld"),)
    return Profile("mysql", version, ORACLE, programs, env, "/", processes, 3306, {})


def _tomcat(tag: str) -> Profile:
    version = _version("tomcat", tag, "11.0.8")
    env = (
        ("PATH", "/usr/local/tomcat/bin:/opt/java/openjdk/bin:" + DEFAULT_PATH),
        ("JAVA_HOME", "/opt/java/openjdk"),
        ("LANG", "en_US.UTF-8"),
        ("JAVA_VERSION", "jdk-21.0.4+7"),
        ("CATALINA_HOME", "/usr/local/tomcat"),
        ("TOMCAT_MAJOR", version.split(".")[0]),
        ("TOMCAT_VERSION", version),
    )
    programs = {
        "catalina.sh": "/usr/local/tomcat/bin",
        "version.sh": "/usr/local/tomcat/bin",
        "java": "/opt/java/openjdk/bin",
        "curl": "/usr/bin",
        "ps": "/usr/bin",
    }
    processes = (
        Process(
            1,
            "root",
            "/opt/java/openjdk/bin/java -Dcatalina.home=/usr/local/tomcat "
            "org.apache.catalina.startup.Bootstrap start",
        ),
    )
    return Profile("tomcat", version, UBUNTU, programs, env, "/usr/local/tomcat", processes, 8080, {})


def _python(tag: str) -> Profile:
    version = _version("python", tag, "3.13.5")
    env = (
        ("PATH", DEFAULT_PATH),
        ("LANG", "C.UTF-8"),
        ("GPG_KEY", "7169605F62C751356D054A26A821E680E5FA6305"),
        ("PYTHON_VERSION", version),
    )
    programs = {"python": "/usr/local/bin", "python3": "/usr/local/bin", "pip": "/usr/local/bin"}
    alpine = _alpine("python", tag)
    if not tag.endswith("slim") and not alpine:
        programs |= {"curl": "/usr/bin", "wget": "/usr/bin", "ps": "/bin"}
    processes = (Process(1, "root", "python3"),)
    return Profile("python", version, ALPINE if alpine else DEBIAN, programs, env, "/", processes)


def _node(tag: str) -> Profile:
    version = _version("node", tag, "24.3.0")
    env = (("PATH", DEFAULT_PATH), ("NODE_VERSION", version), ("YARN_VERSION", "1.22.22"))
    programs = {p: "/usr/local/bin" for p in ("node", "npm", "npx", "yarn", "docker-entrypoint.sh")}
    alpine = _alpine("node", tag)
    if not tag.endswith("slim") and not alpine:
        programs |= {"curl": "/usr/bin", "wget": "/usr/bin", "ps": "/bin"}
    return Profile(
        "node", version, ALPINE if alpine else DEBIAN, programs, env, "/", (Process(1, "root", "node"),)
    )


def _postgres(tag: str) -> Profile:
    version = _version("postgres", tag, "17.5")
    major = version.split(".")[0]
    alpine = _alpine("postgres", tag)
    bin_dir = "/usr/local/bin" if alpine else f"/usr/lib/postgresql/{major}/bin"
    env = (
        ("PATH", DEFAULT_PATH if alpine else f"{DEFAULT_PATH}:{bin_dir}"),
        ("GOSU_VERSION", "1.17"),
        ("LANG", "en_US.utf8"),
        ("PG_MAJOR", major),
        ("PG_VERSION", version if alpine else f"{version}-1.pgdg120+1"),
        ("PGDATA", "/var/lib/postgresql/data"),
    )
    programs = {p: bin_dir for p in ("postgres", "psql", "pg_ctl", "initdb", "pg_isready", "pg_dump")}
    programs["docker-entrypoint.sh"] = "/usr/local/bin"
    processes = (Process(1, "postgres", "postgres"),)
    base = ALPINE if alpine else DEBIAN
    return Profile("postgres", version, base, programs, env, "/", processes, 5432)


def _memcached(tag: str) -> Profile:
    version = _version("memcached", tag, "1.6.38")
    env = (("PATH", DEFAULT_PATH), ("MEMCACHED_VERSION", version))
    programs = {"memcached": "/usr/local/bin", "docker-entrypoint.sh": "/usr/local/bin"}
    base = ALPINE if _alpine("memcached", tag) else DEBIAN
    return Profile(
        "memcached", version, base, programs, env, "/", (Process(1, "memcache", "memcached"),), 11211
    )


def _curl(tag: str) -> Profile:
    version = _version("curlimages/curl", tag, "8.14.1")
    env = (("PATH", DEFAULT_PATH), ("CURL_CA_BUNDLE", "/cacert.pem"))
    programs = {"curl": "/usr/bin", "entrypoint.sh": "/"}
    return Profile(
        "curl", version, ALPINE, programs, env, "/home/curl_user", (Process(1, "curl_user", "curl"),)
    )


def _agnhost(tag: str) -> Profile:
    version = _version("registry.k8s.io/e2e-test-images/agnhost", tag, "2.53")
    processes = (Process(1, "root", "/agnhost"),)
    # Its Dockerfile adds the e2e tests' tools (curl, dig, nc, bash) to Alpine.
    programs = {"agnhost": "/", "curl": "/usr/bin", "dig": "/usr/bin", "nc": "/usr/bin", "bash": "/bin"}
    return Profile("agnhost", version, ALPINE, programs, (("PATH", DEFAULT_PATH),), "/", processes)


def _goproxy(tag: str) -> Profile:
    """A program from scratch (so "distroless": no shell, no tools), a proxy on 8080."""
    processes = (Process(1, "root", "/goproxy"),)
    base = Base("distroless", "", {}, "ash")
    env = (("PATH", DEFAULT_PATH),)
    return Profile("distroless", "0.1", base, {"goproxy": "/"}, env, "/", processes, 8080)


_PLAIN_BASES = {"busybox": BUSYBOX, "alpine": ALPINE, "centos": CENTOS, "ubuntu": UBUNTU, "debian": DEBIAN}


def _plain(repository: str, tag: str) -> Profile:
    """busybox, alpine, centos, ubuntu, debian: a base OS whose default command is a shell."""
    base = _PLAIN_BASES[repository]
    command = "/bin/bash" if base.shell_style != "ash" else "sh"
    version = _version(repository, tag, {"busybox": "1.37.0", "alpine": "3.22.0"}.get(repository, tag))
    return Profile(
        repository, version, base, {}, (("PATH", DEFAULT_PATH),), "/", (Process(1, "root", command),)
    )


_BUILDERS = {
    "nginx": _nginx,
    "httpd": _httpd,
    "redis": _redis,
    "mysql": _mysql,
    "tomcat": _tomcat,
    "python": _python,
    "node": _node,
    "postgres": _postgres,
    "memcached": _memcached,
    "curlimages/curl": _curl,
    "registry.k8s.io/e2e-test-images/agnhost": _agnhost,
    "registry.k8s.io/goproxy": _goproxy,
}


# pause and the control plane's images are distroless: one program, no shell, no tools.
DISTROLESS = Profile("distroless", "", Base("distroless", "", {}, "ash"), {}, (("PATH", DEFAULT_PATH),))


@cache
def profile_for(image: str) -> Profile:
    """The profile of an image reference (`nginx:1.25`, `docker.io/library/busybox`)."""
    repository, tag = split_reference(image)
    if repository in _BUILDERS:
        return _BUILDERS[repository](tag)
    if repository in _PLAIN_BASES:
        return _plain(repository, tag)
    return DISTROLESS

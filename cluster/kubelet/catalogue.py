"""The catalogue's data: each repository's tags as Docker Hub and registry.k8s.io served them in
mid-2025 (the Kubernetes 1.33 era), with what each image runs and how big it is.

Per repository: the versions released (each `X.Y` tag points at its last `X.Y.Z`, and each
`X.Y.Z` has its own tag), the variants built on another base (`-alpine`, `-slim`, ...), the
moving tags (`latest`, `stable`, `alpine`, `lts`, ...), and the Dockerfile's ENTRYPOINT, CMD and
EXPOSE. Sizes are approximate amd64 uncompressed sizes in MB. docs/images.md lists all of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

MB = 1000 * 1000


@dataclass(frozen=True, slots=True)
class Image:
    repository: str  # as users write it: "nginx", "curlimages/curl", "registry.k8s.io/pause"
    tag: str
    size_bytes: int
    logs: str  # which log profile logs.py plays for containers of this image
    long_running: bool = True  # its default command keeps running (a server)
    # Seconds its main process takes to exit on SIGTERM (nginx's fast shutdown is quick); None: the
    # process ignores SIGTERM (a shell or `sleep` as PID 1), so the kubelet waits out the whole
    # grace period and then kills it.
    stop_seconds: float | None = 1.0
    version: str = ""  # the software's version in this tag: nginx 1.25.5, busybox 1.36.1
    base: str = ""  # the system under it: debian, alpine, ubuntu, busybox, oracle, distroless
    entrypoint: tuple[str, ...] = ()  # the image's ENTRYPOINT
    cmd: tuple[str, ...] = ()  # the image's CMD (what runs when the pod gives no command/args)
    ports: tuple[int, ...] = ()  # EXPOSE

    @property
    def reference(self) -> str:
        return f"{self.repository}:{self.tag}"

    @property
    def digest(self) -> str:
        """A stable sha256 digest for the tag (the simulated registry's content address)."""
        return "sha256:" + hashlib.sha256(f"kubesim/{self.reference}".encode()).hexdigest()

    @property
    def image_id(self) -> str:
        """containerStatuses[].imageID as Docker (cri-dockerd) reports it."""
        return f"docker-pullable://{self.repository}@{self.digest}"

    @property
    def names(self) -> list[str]:
        """node status.images[].names, as the Docker runtime lists them."""
        return [f"{self.repository}@{self.digest}", self.reference]

    @property
    def shell(self) -> str:
        """What /bin/sh is: "dash" (Debian, Ubuntu), "ash" (busybox, Alpine), "bash" (CentOS,
        Oracle Linux), "" (distroless: no shell at all)."""
        return _SHELLS.get(self.base, "")


_SHELLS = {"debian": "dash", "ubuntu": "dash", "alpine": "ash", "busybox": "ash"}
_SHELLS |= {"centos": "bash", "oracle": "bash"}
# A shell or `sleep` running as PID 1 has no SIGTERM handler: the kernel ignores the signal for it.
IGNORES_SIGTERM = None


@dataclass(frozen=True, slots=True)
class Kind:
    """What a repository's images share: how they log, run, stop and start."""

    logs: str
    long_running: bool = True
    stop: float | None = 1.0
    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()


def _series(releases: dict[str, str], *, every_patch: bool = True) -> dict[str, str]:
    """{"1.25": "1.25.5"} -> tags "1.25" and "1.25.0" … "1.25.5", each naming its version."""
    tags: dict[str, str] = {}
    for minor, last in releases.items():
        tags[minor] = last
        if every_patch and last.count(".") == minor.count(".") + 1 and last.rsplit(".", 1)[1].isdigit():
            for patch in range(int(last.rsplit(".", 1)[1]) + 1):
                tags[f"{minor}.{patch}"] = f"{minor}.{patch}"
        else:
            tags[last] = last
    return tags


def _images(
    repository: str,
    kind: Kind,
    tags: dict[str, str],
    size_mb,
    base: str,
    suffix: str = "",
    **override,
) -> list[Image]:
    """One Image per tag (with `suffix` appended: "-alpine"); size_mb(version) -> MB."""
    fields = {
        "logs": kind.logs,
        "long_running": kind.long_running,
        "stop_seconds": kind.stop,
        "entrypoint": kind.entrypoint,
        "cmd": kind.cmd,
        "ports": kind.ports,
    } | override
    out = []
    for tag, version in tags.items():
        size = size_mb(version) if callable(size_mb) else size_mb
        values = dict(fields)
        if callable(values.get("logs")):
            values["logs"] = values["logs"](version)
        if callable(values.get("entrypoint")):
            values["entrypoint"] = values["entrypoint"](version)
        out.append(Image(repository, f"{tag}{suffix}", int(size * MB), version=version, base=base, **values))
    return out


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:2] if part.isdigit())


# -- nginx -------------------------------------------------------------------------------------
_NGINX = _series(
    {
        "1.14": "1.14.2",
        "1.15": "1.15.12",
        "1.16": "1.16.1",
        "1.17": "1.17.10",
        "1.18": "1.18.0",
        "1.19": "1.19.10",
        "1.20": "1.20.2",
        "1.21": "1.21.6",
        "1.22": "1.22.1",
        "1.23": "1.23.4",
        "1.24": "1.24.0",
        "1.25": "1.25.5",
        "1.26": "1.26.3",
        "1.27": "1.27.5",
        "1.28": "1.28.0",
        "1.29": "1.29.0",
    }
)
_NGINX_MOVING = {"latest": "1.29.0", "mainline": "1.29.0", "stable": "1.28.0", "1": "1.29.0"}
# Before 1.19 the image had no entrypoint scripts: nginx starts without a word.
_NGINX_KIND = Kind(
    logs=lambda v: "silent" if _minor(v) < (1, 19) else "nginx",
    entrypoint=lambda v: () if _minor(v) < (1, 19) else ("/docker-entrypoint.sh",),
    cmd=("nginx", "-g", "daemon off;"),
    ports=(80,),
)
_NGINX_DEBIAN_MB = {(1, 14): 109.1, (1, 15): 109.3, (1, 16): 126.8, (1, 17): 126.8, (1, 18): 133.2}


def _nginx_size(version: str) -> float:
    minor = _minor(version)
    if minor in _NGINX_DEBIAN_MB:
        return _NGINX_DEBIAN_MB[minor]
    return 133.2 if minor < (1, 21) else 141.5 if minor < (1, 25) else 187.0 if minor < (1, 27) else 192.0


def _nginx_alpine_size(version: str) -> float:
    return 22.1 if _minor(version) < (1, 23) else 41.4 if _minor(version) < (1, 27) else 47.9


_NGINX_IMAGES = [
    *_images("nginx", _NGINX_KIND, {**_NGINX, **_NGINX_MOVING}, _nginx_size, "debian"),
    *_images("nginx", _NGINX_KIND, _NGINX, _nginx_alpine_size, "alpine", "-alpine"),
    *_images(
        "nginx",
        _NGINX_KIND,
        {"alpine": "1.29.0", "mainline-alpine": "1.29.0", "stable-alpine": "1.28.0"},
        47.9,
        "alpine",
    ),
]

# -- httpd -------------------------------------------------------------------------------------
_HTTPD_RELEASES = ("41", "43", "46", "48", "49", "50", "51", "52", "53", "54", "55", "56", "57", "58", "59")
_HTTPD = {f"2.4.{patch}": f"2.4.{patch}" for patch in (*_HTTPD_RELEASES, "61", "62", "63")}
_HTTPD |= {"2.4": "2.4.63", "2": "2.4.63"}
_HTTPD_KIND = Kind("httpd", cmd=("httpd-foreground",), ports=(80,))
_HTTPD_IMAGES = [
    *_images("httpd", _HTTPD_KIND, {**_HTTPD, "latest": "2.4.63"}, 148.0, "debian"),
    *_images("httpd", _HTTPD_KIND, {"2.2": "2.2.34", "2.2.34": "2.2.34"}, 171.0, "debian"),
    *_images("httpd", _HTTPD_KIND, _HTTPD, 61.4, "alpine", "-alpine"),
    *_images("httpd", _HTTPD_KIND, {"alpine": "2.4.63"}, 61.4, "alpine"),
]

# -- redis -------------------------------------------------------------------------------------
_REDIS = {
    "5": "5.0.14",
    "5.0": "5.0.14",
    "5.0.14": "5.0.14",
    "6": "6.2.18",
    "6.0": "6.0.20",
    "6.0.20": "6.0.20",
    **_series({"6.2": "6.2.18", "7.0": "7.0.15", "7.2": "7.2.9", "7.4": "7.4.4", "8.0": "8.0.2"}),
    "7": "7.4.4",
    "8": "8.0.2",
}
_REDIS_KIND = Kind(
    "redis", stop=0.5, entrypoint=("docker-entrypoint.sh",), cmd=("redis-server",), ports=(6379,)
)
_REDIS_IMAGES = [
    *_images(
        "redis",
        _REDIS_KIND,
        {**_REDIS, "latest": "8.0.2", "bookworm": "8.0.2"},
        lambda v: 98.2 if v < "6" else 112.7 if v < "7" else 117.4,
        "debian",
    ),
    *_images("redis", _REDIS_KIND, _REDIS, 41.2, "alpine", "-alpine"),
    *_images("redis", _REDIS_KIND, {"alpine": "8.0.2"}, 41.2, "alpine"),
]

# -- databases ---------------------------------------------------------------------------------
_POSTGRES = {
    **{str(major): last for major, last in {"12": "12.22", "13": "13.21", "14": "14.18"}.items()},
    **{str(major): last for major, last in {"15": "15.13", "16": "16.9", "17": "17.5"}.items()},
}
_POSTGRES_TAGS = dict(_POSTGRES)
for _major, _last in _POSTGRES.items():
    for _patch in range(int(_last.split(".")[1]) + 1):
        _POSTGRES_TAGS[f"{_major}.{_patch}"] = f"{_major}.{_patch}"
_POSTGRES_KIND = Kind(
    "postgres", stop=2.0, entrypoint=("docker-entrypoint.sh",), cmd=("postgres",), ports=(5432,)
)
_POSTGRES_IMAGES = [
    *_images("postgres", _POSTGRES_KIND, {**_POSTGRES_TAGS, "latest": "17.5"}, 435.0, "debian"),
    *_images("postgres", _POSTGRES_KIND, {"bookworm": "17.5"}, 435.0, "debian"),
    *_images("postgres", _POSTGRES_KIND, _POSTGRES_TAGS, 273.0, "alpine", "-alpine"),
    *_images("postgres", _POSTGRES_KIND, {"alpine": "17.5"}, 273.0, "alpine"),
]

_MYSQL = {
    "5.7": "5.7.44",
    "5.7.44": "5.7.44",
    "5": "5.7.44",
    "8.0": "8.0.42",
    **{f"8.0.{p}": f"8.0.{p}" for p in range(30, 43)},
    "8.4": "8.4.5",
    **{f"8.4.{p}": f"8.4.{p}" for p in range(6)},
    "8": "8.4.5",
    "lts": "8.4.5",
    "9.0": "9.0.1",
    "9.1": "9.1.0",
    "9.2": "9.2.0",
    "9.3": "9.3.0",
    "9": "9.3.0",
    "innovation": "9.3.0",
    "latest": "9.3.0",
}
_MYSQL_KIND = Kind(
    "mysql", stop=3.0, entrypoint=("docker-entrypoint.sh",), cmd=("mysqld",), ports=(3306, 33060)
)
_MYSQL_IMAGES = _images("mysql", _MYSQL_KIND, _MYSQL, lambda v: 501.0 if v < "8" else 581.4, "oracle")

_MEMCACHED = {"1.6": "1.6.38", **{f"1.6.{p}": f"1.6.{p}" for p in range(9, 39)}, "1": "1.6.38"}
_MEMCACHED_KIND = Kind(
    "memcached", stop=0.5, entrypoint=("docker-entrypoint.sh",), cmd=("memcached",), ports=(11211,)
)
_MEMCACHED_IMAGES = [
    *_images("memcached", _MEMCACHED_KIND, {**_MEMCACHED, "latest": "1.6.38"}, 84.6, "debian"),
    *_images("memcached", _MEMCACHED_KIND, {"bookworm": "1.6.38"}, 84.6, "debian"),
    *_images("memcached", _MEMCACHED_KIND, _MEMCACHED, 8.9, "alpine", "-alpine"),
    *_images("memcached", _MEMCACHED_KIND, {"alpine": "1.6.38"}, 8.9, "alpine"),
]

_TOMCAT = {"8": "8.5.100", "8.5": "8.5.100", "9": "9.0.106", "9.0": "9.0.106"}
_TOMCAT |= {"10": "10.1.42", "10.1": "10.1.42"}
_TOMCAT |= {"11": "11.0.8", "11.0": "11.0.8", "latest": "11.0.8"}
_TOMCAT_IMAGES = _images(
    "tomcat", Kind("tomcat", stop=2.0, cmd=("catalina.sh", "run"), ports=(8080,)), _TOMCAT, 470.0, "ubuntu"
)

# -- base systems: their default command is a shell, which ends at once without a terminal ------
_SHELL_ENDS = {"long_running": False, "stop_seconds": IGNORES_SIGTERM}
_BUSYBOX = _series({"1.28": "1.28.4", "1.29": "1.29.3", "1.30": "1.30.1", "1.31": "1.31.1", "1.32": "1.32.1"})
_BUSYBOX |= _series({"1.33": "1.33.1", "1.34": "1.34.1", "1.35": "1.35.0"})
_BUSYBOX |= _series({"1.36": "1.36.1", "1.37": "1.37.0"})
_BUSYBOX |= {"1": "1.37.0", "latest": "1.37.0", "stable": "1.36.1", "musl": "1.37.0", "glibc": "1.37.0"}
_BUSYBOX |= {"uclibc": "1.37.0", "1.36-musl": "1.36.1", "1.36-glibc": "1.36.1", "1.36-uclibc": "1.36.1"}
_BUSYBOX_KIND = Kind("busybox", cmd=("sh",))
_BUSYBOX_IMAGES = _images(
    "busybox", _BUSYBOX_KIND, _BUSYBOX, lambda v: 1.15 if v < "1.3" else 4.26, "busybox", **_SHELL_ENDS
)

_ALPINE = {
    "3.10": "3.10.9",
    "3.11": "3.11.13",
    "3.12": "3.12.12",
    "3.13": "3.13.12",
    "3.14": "3.14.10",
    "3.15": "3.15.11",
    "3.16": "3.16.9",
    "3.17": "3.17.10",
    "3.18": "3.18.12",
    "3.19": "3.19.7",
    "3.20": "3.20.6",
    "3.21": "3.21.3",
    "3.22": "3.22.0",
}
_ALPINE_TAGS = {**_ALPINE, **{last: last for last in _ALPINE.values()}}
_ALPINE_TAGS |= {"3": "3.22.0", "latest": "3.22.0", "edge": "20250108"}
_ALPINE_IMAGES = _images(
    "alpine", Kind("busybox", cmd=("/bin/sh",)), _ALPINE_TAGS, 7.8, "alpine", **_SHELL_ENDS
)

_UBUNTU = {
    "18.04": "18.04",
    "bionic": "18.04",
    "20.04": "20.04",
    "focal": "20.04",
    "22.04": "22.04",
    "jammy": "22.04",
    "24.04": "24.04",
    "noble": "24.04",
    "24.10": "24.10",
    "oracular": "24.10",
    "25.04": "25.04",
    "plucky": "25.04",
    "latest": "24.04",
    "rolling": "25.04",
}
_UBUNTU_IMAGES = _images(
    "ubuntu",
    Kind("busybox", cmd=("/bin/bash",)),
    _UBUNTU,
    lambda v: 63.1 if v < "20" else 77.9,
    "ubuntu",
    **_SHELL_ENDS,
)

_DEBIAN = {"10": "10", "buster": "10", "11": "11", "bullseye": "11", "12": "12", "bookworm": "12"}
_DEBIAN |= {"stable": "12", "latest": "12", "trixie": "13", "testing": "13"}
_DEBIAN_KIND = Kind("busybox", cmd=("bash",))
_DEBIAN_SLIM = {tag: version for tag, version in _DEBIAN.items() if tag != "latest"}
_DEBIAN_IMAGES = [
    *_images("debian", _DEBIAN_KIND, _DEBIAN, 116.5, "debian", **_SHELL_ENDS),
    *_images("debian", _DEBIAN_KIND, _DEBIAN_SLIM, 74.8, "debian", "-slim", **_SHELL_ENDS),
]

_CENTOS_IMAGES = _images(
    "centos",
    Kind("busybox", cmd=("/bin/bash",)),
    {"7": "7.9.2009", "centos7": "7.9.2009", "7.9.2009": "7.9.2009", "8": "8.4.2105", "latest": "8.4.2105"},
    lambda v: 204.0 if v < "8" else 231.0,
    "centos",
    **_SHELL_ENDS,
)

# -- language runtimes: their default command is the interpreter's prompt, which ends at EOF ----
_PYTHON = {
    "3.8": "3.8.20",
    "3.9": "3.9.23",
    "3.10": "3.10.18",
    "3.11": "3.11.13",
    "3.12": "3.12.11",
    "3.13": "3.13.5",
}
_PYTHON_TAGS = {**_PYTHON, **{last: last for last in _PYTHON.values()}, "3": "3.13.5"}
_PYTHON_KIND = Kind("busybox", cmd=("python3",))
_PYTHON_IMAGES = [
    *_images("python", _PYTHON_KIND, {**_PYTHON_TAGS, "latest": "3.13.5"}, 1020.0, "debian", **_SHELL_ENDS),
    *_images("python", _PYTHON_KIND, _PYTHON_TAGS, 130.0, "debian", "-slim", **_SHELL_ENDS),
    *_images("python", _PYTHON_KIND, _PYTHON_TAGS, 50.3, "alpine", "-alpine", **_SHELL_ENDS),
    *_images("python", _PYTHON_KIND, {"slim": "3.13.5"}, 130.0, "debian", **_SHELL_ENDS),
    *_images("python", _PYTHON_KIND, {"alpine": "3.13.5"}, 50.3, "alpine", **_SHELL_ENDS),
]

_NODE = {"16": "16.20.2", "18": "18.20.8", "20": "20.19.3", "22": "22.17.0", "23": "23.11.1", "24": "24.3.0"}
_NODE_TAGS = {**_NODE, **{last: last for last in _NODE.values()}}
_NODE_TAGS |= {"lts": "22.17.0", "jod": "22.17.0", "iron": "20.19.3", "hydrogen": "18.20.8"}
_NODE_TAGS |= {"current": "24.3.0"}
_NODE_KIND = Kind("busybox", entrypoint=("docker-entrypoint.sh",), cmd=("node",))
_NODE_IMAGES = [
    *_images("node", _NODE_KIND, {**_NODE_TAGS, "latest": "24.3.0"}, 1100.0, "debian", **_SHELL_ENDS),
    *_images("node", _NODE_KIND, _NODE, 198.0, "debian", "-slim", **_SHELL_ENDS),
    *_images("node", _NODE_KIND, _NODE, 155.0, "alpine", "-alpine", **_SHELL_ENDS),
    *_images("node", _NODE_KIND, {"alpine": "24.3.0", "slim": "24.3.0"}, 155.0, "alpine", **_SHELL_ENDS),
]

# -- tools ---------------------------------------------------------------------------------------
_CURL = ("7.72.0", "7.85.0", "8.1.2", "8.2.1", "8.4.0", "8.5.0", "8.6.0", "8.7.1", "8.8.0", "8.9.1")
_CURL += ("8.10.1", "8.11.0", "8.11.1", "8.12.0", "8.12.1", "8.13.0", "8.14.1")
_CURL_IMAGES = _images(
    "curlimages/curl",
    Kind("busybox", entrypoint=("/entrypoint.sh",), cmd=("curl",)),
    {**{v: v for v in _CURL}, "latest": "8.14.1"},
    lambda v: 11.1 if v < "8" else 21.6,
    "alpine",
    # With no arguments curl prints its usage hint and exits 2.
    long_running=False,
)

# The Kubernetes e2e test image: one binary whose first argument picks a server (netexec on
# 8080, serve-hostname on 9376, liveness, ...); with none it prints its help and exits.
_AGNHOST = ("2.21", "2.26", "2.28", "2.32", "2.33", "2.36", "2.39", "2.40", "2.43", "2.45", "2.47")
_AGNHOST += ("2.48", "2.51", "2.52", "2.53")
_AGNHOST_IMAGES = _images(
    "registry.k8s.io/e2e-test-images/agnhost",
    Kind("none", entrypoint=("/agnhost",), ports=(80, 8080, 9376)),
    {v: v for v in _AGNHOST},
    lambda v: 113.0 if v < "2.4" else 51.7,
    "alpine",
)

# The docs' TCP-probe example (Configure Liveness, Readiness and Startup Probes): an HTTP proxy
# listening on 8080, built from scratch.
_GOPROXY_IMAGES = _images(
    "registry.k8s.io/goproxy",
    Kind("none", entrypoint=("/goproxy",), ports=(8080,)),
    {"0.1": "0.1"},
    5.5,
    "distroless",
)

# -- the cluster's own images: distroless, one program -------------------------------------------
_PAUSE_IMAGES = _images(
    "registry.k8s.io/pause",
    Kind("none", stop=0.1, entrypoint=("/pause",)),
    {v: v for v in ("3.1", "3.2", "3.5", "3.6", "3.7", "3.8", "3.9", "3.10")},
    0.736,
    "distroless",
)
_SYSTEM = {
    "registry.k8s.io/kube-proxy": ("/usr/local/bin/kube-proxy", 97.9),
    "registry.k8s.io/kube-apiserver": ("kube-apiserver", 97.2),
    "registry.k8s.io/kube-controller-manager": ("kube-controller-manager", 90.6),
    "registry.k8s.io/kube-scheduler": ("kube-scheduler", 70.2),
}
_K8S_VERSIONS = {f"v1.33.{p}": f"1.33.{p}" for p in range(4)} | {f"v1.32.{p}": f"1.32.{p}" for p in range(7)}
_SYSTEM_IMAGES = [
    image
    for repository, (program, size) in _SYSTEM.items()
    for image in _images(repository, Kind("none", entrypoint=(program,)), _K8S_VERSIONS, size, "distroless")
]
_SYSTEM_IMAGES += _images(
    "registry.k8s.io/etcd",
    Kind("none", entrypoint=("etcd",), ports=(2379, 2380)),
    {"3.5.21-0": "3.5.21", "3.5.16-0": "3.5.16", "3.5.15-0": "3.5.15"},
    153.0,
    "distroless",
)
_SYSTEM_IMAGES += _images(
    "registry.k8s.io/coredns/coredns",
    Kind("none", stop=5.0, entrypoint=("/coredns",), ports=(53,)),  # lameduck 5s
    {"v1.12.0": "1.12.0", "v1.11.3": "1.11.3", "v1.11.1": "1.11.1"},
    68.4,
    "distroless",
)
_SYSTEM_IMAGES += _images(
    "flannel/flannel",
    Kind("none", entrypoint=("/opt/bin/flanneld",)),
    {"v0.26.7": "0.26.7", "v0.26.1": "0.26.1", "v0.25.7": "0.25.7"},
    84.6,
    "alpine",
)


def _unique(images: Iterable[Image]) -> list[Image]:
    seen: dict[str, Image] = {}
    for image in images:
        seen.setdefault(image.reference, image)
    return list(seen.values())


CATALOGUE: list[Image] = _unique(
    [
        *_NGINX_IMAGES,
        *_HTTPD_IMAGES,
        *_REDIS_IMAGES,
        *_POSTGRES_IMAGES,
        *_MYSQL_IMAGES,
        *_MEMCACHED_IMAGES,
        *_TOMCAT_IMAGES,
        *_BUSYBOX_IMAGES,
        *_ALPINE_IMAGES,
        *_UBUNTU_IMAGES,
        *_DEBIAN_IMAGES,
        *_CENTOS_IMAGES,
        *_PYTHON_IMAGES,
        *_NODE_IMAGES,
        *_CURL_IMAGES,
        *_AGNHOST_IMAGES,
        *_GOPROXY_IMAGES,
        *_PAUSE_IMAGES,
        *_SYSTEM_IMAGES,
    ]
)

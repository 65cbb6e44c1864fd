"""The image catalog the simulated registry serves: repositories, tags and realistic sizes.

Sizes are the uncompressed bytes `docker images` reports (what node status.images carries and
ImageLocality scores). An image that is not here does not exist: pulling it fails as Docker does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

MB = 1000 * 1000


@dataclass(frozen=True, slots=True)
class Image:
    repository: str  # as users write it: "nginx", "registry.k8s.io/pause"
    tag: str
    size_bytes: int
    logs: str  # which log profile logs.py plays for containers of this image
    long_running: bool = True  # its default command keeps running (a server)
    # Seconds its main process takes to exit on SIGTERM (nginx's fast shutdown is quick); None: the
    # process ignores SIGTERM (a shell or `sleep` as PID 1), so the kubelet waits out the whole
    # grace period and then kills it.
    stop_seconds: float | None = 1.0

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


def _images(
    repository: str,
    logs: str,
    tags: dict[str, float],
    long_running: bool = True,
    stop: float | None = 1.0,
) -> list[Image]:
    return [Image(repository, tag, int(size * MB), logs, long_running, stop) for tag, size in tags.items()]


# A shell or `sleep` running as PID 1 has no SIGTERM handler: the kernel ignores the signal for it.
IGNORES_SIGTERM = None


_CATALOG: list[Image] = [
    # nginx images before 1.19 have no entrypoint scripts: they start silently.
    *_images("nginx", "silent", {"1.14": 109.1, "1.15": 109.3, "1.16": 126.8}),
    *_images(
        "nginx",
        "nginx",
        {
            "1.19": 133.2,
            "1.21": 141.5,
            "1.25": 187.0,
            "1.27": 192.0,
            "latest": 192.0,
            "alpine": 47.9,
            "1.27-alpine": 47.9,
        },
    ),
    *_images("httpd", "httpd", {"2.4": 148.0, "latest": 148.0, "alpine": 61.4}),
    *_images(
        "redis", "redis", {"5": 98.2, "6": 112.7, "7": 117.4, "latest": 117.4, "alpine": 41.2}, stop=0.5
    ),
    *_images("mysql", "mysql", {"5.7": 501.0, "8.0": 581.4, "latest": 602.0}, stop=3.0),
    *_images("tomcat", "tomcat", {"8": 356.0, "9": 470.0, "latest": 470.0}, stop=2.0),
    *_images("busybox", "busybox", {"1.28": 1.15, "1.36": 4.26, "latest": 4.26}, False, IGNORES_SIGTERM),
    *_images("alpine", "busybox", {"3.18": 7.33, "3.20": 7.8, "latest": 7.8}, False, IGNORES_SIGTERM),
    *_images("centos", "busybox", {"7": 204.0, "latest": 231.0}, False, IGNORES_SIGTERM),
    *_images("ubuntu", "busybox", {"22.04": 77.9, "24.04": 78.1, "latest": 78.1}, False, IGNORES_SIGTERM),
    *_images("python", "busybox", {"3.12": 1020.0, "3.12-slim": 130.0}, False, IGNORES_SIGTERM),
    *_images("registry.k8s.io/pause", "none", {"3.10": 0.736}, stop=0.1),
    *_images("registry.k8s.io/kube-proxy", "none", {"v1.33.1": 97.9}),
    *_images("registry.k8s.io/kube-apiserver", "none", {"v1.33.1": 97.2}),
    *_images("registry.k8s.io/kube-controller-manager", "none", {"v1.33.1": 90.6}),
    *_images("registry.k8s.io/kube-scheduler", "none", {"v1.33.1": 70.2}),
    *_images("registry.k8s.io/etcd", "none", {"3.5.21-0": 153.0}),
    *_images("registry.k8s.io/coredns/coredns", "none", {"v1.12.0": 68.4}, stop=5.0),  # lameduck 5s
    *_images("flannel/flannel", "none", {"v0.26.7": 84.6}),
]
_BY_REFERENCE = {image.reference: image for image in _CATALOG}
_REPOSITORIES = {image.repository for image in _CATALOG}


def split_reference(image: str) -> tuple[str, str]:
    """("docker.io/library/nginx:1.15" | "nginx:1.15" | "nginx") -> ("nginx", "1.15" | "latest")."""
    name, _, digest = image.partition("@")
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
    else:
        tag = digest or "latest"
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/library/"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return name, tag


def lookup(image: str) -> Image | None:
    repository, tag = split_reference(image)
    return _BY_REFERENCE.get(f"{repository}:{tag}")


def pull_error(image: str) -> str:
    """Docker's answer when the image does not exist, as the kubelet's Failed event quotes it."""
    repository, tag = split_reference(image)
    if repository in _REPOSITORIES:
        return (
            f"Error response from daemon: manifest for {repository}:{tag} not found: manifest unknown: "
            "manifest unknown"
        )
    return (
        f"Error response from daemon: pull access denied for {repository}, repository does not exist or "
        "may require 'docker login': denied: requested access to the resource is denied"
    )


def node_image_entry(image: Image) -> dict:
    return {"names": image.names, "sizeBytes": image.size_bytes}


def catalog() -> list[Image]:
    return list(_CATALOG)

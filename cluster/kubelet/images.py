"""The image catalogue the simulated registries serve: repositories, their tags, and what each
image is (its software version, base system, default command, ports and size).

The tags are a representative set of those Docker Hub and registry.k8s.io hold (docs/images.md
lists them and says which are left out); the data is in `cluster/kubelet/catalogue.py`. An image
that is not here does not exist: pulling it fails with the registry's words (`pull_error`).
Sizes are the uncompressed bytes `docker images` reports (what node status.images carries and
ImageLocality scores).
"""

from __future__ import annotations

from cluster.kubelet import reference
from cluster.kubelet.catalogue import CATALOGUE, MB, Image

__all__ = ["MB", "Image"]


_CATALOG: list[Image] = CATALOGUE
_BY_REFERENCE = {image.reference: image for image in _CATALOG}
_BY_DIGEST = {(image.repository, image.digest): image for image in _CATALOG}
_REPOSITORIES = {image.repository for image in _CATALOG}
# Registries the simulated network reaches; any other host does not resolve.
DOCKER_HUB = reference.DEFAULT_DOMAIN
K8S_REGISTRY = "registry.k8s.io"
# The node's resolver (systemd-resolved on the nodes' Ubuntu), as Docker's lookup error names it.
NODE_RESOLVER = "127.0.0.53:53"


def split_reference(image: str) -> tuple[str, str]:
    """("docker.io/library/nginx:1.15" | "nginx:1.15" | "nginx") -> ("nginx", "1.15" | "latest");
    a digest reference gives the digest as its tag. A reference that does not parse is split as
    written (the kubelet refuses it before any lookup: InvalidImageName)."""
    try:
        parsed = reference.parse(image)
    except reference.InvalidReference:
        name, _, digest = image.partition("@")
        last = name.rsplit("/", 1)[-1]
        if ":" in last:
            name, tag = name.rsplit(":", 1)
            return name, tag
        return name, digest or "latest"
    return parsed.familiar, parsed.tag or parsed.digest


def lookup(image: str) -> Image | None:
    try:
        parsed = reference.parse(image)
    except reference.InvalidReference:
        return None
    if parsed.digest:
        return _BY_DIGEST.get((parsed.familiar, parsed.digest))
    return _BY_REFERENCE.get(f"{parsed.familiar}:{parsed.tag}")


def invalid_name(image: str) -> str | None:
    """The InvalidImageName message for a reference the kubelet cannot parse; None when it parses."""
    return reference.invalid_image_message(image)


def pull_error(image: str) -> str:
    """The runtime's answer when the image does not exist, as the kubelet's Failed event and
    ErrImagePull state quote it (Docker's daemon, through cri-dockerd)."""
    parsed = reference.parse(image)
    name = parsed.familiar
    wanted = f"{name}@{parsed.digest}" if parsed.digest else f"{name}:{parsed.tag}"
    if parsed.domain == DOCKER_HUB:
        if name in _REPOSITORIES:
            return (
                f"Error response from daemon: manifest for {wanted} not found: manifest unknown: "
                "manifest unknown"
            )
        return (
            f"Error response from daemon: pull access denied for {name}, repository does not exist or "
            "may require 'docker login': denied: requested access to the resource is denied"
        )
    if parsed.domain == K8S_REGISTRY:
        # Artifact Registry behind registry.k8s.io answers a missing repository as a missing tag.
        return (
            f"Error response from daemon: manifest for {wanted} not found: manifest unknown: "
            f'Failed to fetch "{parsed.tag or parsed.digest}"'
        )
    host = parsed.domain.rsplit(":", 1)[0] if not parsed.domain.endswith("]") else parsed.domain
    if host == "localhost" or host.replace(".", "").isdigit() or host.startswith("["):
        address = "127.0.0.1" if host == "localhost" else host.strip("[]")
        port = parsed.domain.rsplit(":", 1)[1] if parsed.domain.count(":") == 1 else "443"
        return (
            f'Error response from daemon: Get "https://{parsed.domain}/v2/": '
            f"dial tcp {address}:{port}: connect: connection refused"
        )
    return (
        f'Error response from daemon: Get "https://{parsed.domain}/v2/": '
        f"dial tcp: lookup {host} on {NODE_RESOLVER}: no such host"
    )


def node_image_entry(image: Image) -> dict:
    return {"names": image.names, "sizeBytes": image.size_bytes}


def catalog() -> list[Image]:
    return list(_CATALOG)


def repositories() -> dict[str, list[Image]]:
    """The catalogue by repository, in its order (docs and the page list it so)."""
    out: dict[str, list[Image]] = {}
    for image in _CATALOG:
        out.setdefault(image.repository, []).append(image)
    return out

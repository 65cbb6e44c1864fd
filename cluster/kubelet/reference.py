"""Image references as the kubelet parses them before a pull (distribution/reference's
ParseNormalizedNamed, through the kubelet's applyDefaultImageTag): a reference that does not parse
is an InvalidImageName, with the parser's own words.

The grammar runs on RE2: its matching time is linear, so a hostile `image:` (a long run of letters
ending in `!`, which makes a backtracking engine take exponential time) cannot hold the kubelet.
"""

from __future__ import annotations

from dataclasses import dataclass

import re2

DEFAULT_DOMAIN = "docker.io"
LEGACY_DEFAULT_DOMAIN = "index.docker.io"
OFFICIAL_PREFIX = "library/"
REPOSITORY_NAME_MAX = 255

# distribution/reference's regexp.go, piece by piece.
_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = f"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_REMOTE_NAME = f"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = f"{_DOMAIN_COMPONENT}(?:\\.{_DOMAIN_COMPONENT})*"
_HOST = f"(?:{_DOMAIN_NAME}|\\[(?:[a-fA-F0-9:]+)\\])"
_DOMAIN_AND_PORT = f"{_HOST}(?::[0-9]+)?"
_NAME = f"(?:{_DOMAIN_AND_PORT}/)?{_REMOTE_NAME}"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"

_REFERENCE = re2.compile(f"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$")
_ANCHORED_NAME = re2.compile(f"^(?:({_DOMAIN_AND_PORT})/)?({_REMOTE_NAME})$")
_IDENTIFIER = re2.compile(r"^[a-f0-9]{64}$")
# go-digest's algorithms the kubelet registers, and their hex lengths.
_DIGEST_SIZES = {"sha256": 64, "sha384": 96, "sha512": 128}
_DIGEST_SHAPE = re2.compile(r"^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$")


class InvalidReference(ValueError):
    """str(): the parser's error, as the kubelet quotes it."""


@dataclass(frozen=True, slots=True)
class Reference:
    domain: str  # docker.io, registry.k8s.io, localhost:5000
    path: str  # library/nginx, e2e-test-images/agnhost
    tag: str  # "" when the reference names only a digest
    digest: str  # "" unless `@sha256:...`

    @property
    def familiar(self) -> str:
        """The repository as Docker's UI writes it: "nginx", "curlimages/curl", "registry.k8s.io/pause"."""
        if self.domain != DEFAULT_DOMAIN:
            return f"{self.domain}/{self.path}"
        rest = self.path.removeprefix(OFFICIAL_PREFIX)
        return self.path if "/" in rest else rest


def _split_docker_domain(name: str) -> tuple[str, str]:
    first, slash, rest = name.partition("/")
    if not slash:
        return DEFAULT_DOMAIN, OFFICIAL_PREFIX + name
    if first == "localhost" or any(c in first for c in ".:") or first.lower() != first:
        domain, remote = first, rest
    else:
        domain, remote = DEFAULT_DOMAIN, name
    if domain == LEGACY_DEFAULT_DOMAIN:
        domain = DEFAULT_DOMAIN
    if domain == DEFAULT_DOMAIN and "/" not in remote:
        remote = OFFICIAL_PREFIX + remote
    return domain, remote


def _check_digest(digest: str) -> None:
    """go-digest's Digest.Validate."""
    algorithm, colon, encoded = digest.partition(":")
    if not algorithm or not colon or not encoded:
        raise InvalidReference("invalid checksum digest format")
    size = _DIGEST_SIZES.get(algorithm)
    if size is None:
        if not _DIGEST_SHAPE.match(digest):
            raise InvalidReference("invalid checksum digest format")
        raise InvalidReference("unsupported digest algorithm")
    if len(encoded) != size:
        raise InvalidReference("invalid checksum digest length")
    if not re2.match(r"^[a-f0-9]+$", encoded):
        raise InvalidReference("invalid checksum digest format")


def _parse(text: str) -> tuple[str, str, str, str]:
    """reference.Parse: (domain, path, tag, digest)."""
    match = _REFERENCE.match(text)
    if match is None:
        lower = text.lower()
        if lower != text and _REFERENCE.match(lower) is not None:
            raise InvalidReference("repository name must be lowercase")
        raise InvalidReference("invalid reference format")
    name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    named = _ANCHORED_NAME.match(name)
    domain, path = (named.group(1) or "", named.group(2)) if named else ("", name)
    if len(path) > REPOSITORY_NAME_MAX:
        raise InvalidReference(f"repository name must not be more than {REPOSITORY_NAME_MAX} characters")
    if digest:
        _check_digest(digest)
    return domain, path, tag, digest


def parse(image: str) -> Reference:
    """ParseNormalizedNamed, with "latest" for a reference that names neither tag nor digest."""
    if not image:
        raise InvalidReference("repository name must have at least one component")
    if _IDENTIFIER.match(image):
        raise InvalidReference(
            f"invalid repository name ({image}), cannot specify 64-byte hexadecimal strings"
        )
    domain, remainder = _split_docker_domain(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        raise InvalidReference(f"invalid reference format: repository name ({remote}) must be lowercase")
    domain, path, tag, digest = _parse(f"{domain}/{remainder}")
    return Reference(domain, path, tag or ("" if digest else "latest"), digest)


def invalid_image_message(image: str) -> str | None:
    """None when the kubelet can pull `image`; else the InvalidImageName message it reports
    (the InspectFailed event's and the waiting state's)."""
    try:
        parse(image)
    except InvalidReference as error:
        return (
            f'Failed to apply default image tag "{_go_quote(image)}": '
            f'couldn\'t parse image name "{_go_quote(image)}": {error}'
        )
    return None


def _go_quote(text: str) -> str:
    """The inside of Go's %q for the printable text an image field holds."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "".join(out)

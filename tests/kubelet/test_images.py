"""The image catalogue, the kubelet's reference parsing (InvalidImageName) and its pull failures:
the registry's words, ErrImagePull, then ImagePullBackOff, and the back-off between pulls."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster.apiserver import service as api
from cluster.kubelet import images as catalog
from cluster.kubelet import pulls
from cluster.kubelet.reference import invalid_image_message, parse
from tests.support.demo import KUBECTL, drive, example

# Tags that course material uses and that the catalogue once lacked.
COURSE_IMAGES = (
    "nginx:1.16.1",
    "nginx:1.28",
    "nginx:stable",
    "nginx:1.27-alpine",
    "busybox:1.35",
    "busybox:1.28.4",
    "redis:7.2",
    "httpd:2.4-alpine",
    "memcached:1.6",
    "postgres:16",
    "mysql:8.4",
    "python:3.12-slim",
    "node:20-alpine",
    "debian:bookworm-slim",
    "ubuntu:22.04",
    "alpine:3.19",
    "curlimages/curl:8.8.0",
    "registry.k8s.io/e2e-test-images/agnhost:2.39",
    "registry.k8s.io/pause:3.10",
    "docker.io/library/nginx:1.25",
    "index.docker.io/library/busybox",
)


@pytest.mark.parametrize("reference", COURSE_IMAGES)
def test_course_images_are_in_the_catalogue(reference):
    image = catalog.lookup(reference)
    assert image is not None, reference
    assert image.version and image.size_bytes > 0


def test_each_tag_knows_its_version_base_and_default_command():
    old, new = catalog.lookup("nginx:1.16"), catalog.lookup("nginx:1.25")
    assert old.version == "1.16.1" and old.entrypoint == () and old.logs == "silent"
    assert new.version == "1.25.5" and new.entrypoint == ("/docker-entrypoint.sh",)
    assert new.cmd == ("nginx", "-g", "daemon off;") and new.ports == (80,)
    assert catalog.lookup("nginx:stable").version == "1.28.0"
    assert catalog.lookup("nginx:alpine").base == "alpine" and catalog.lookup("nginx").base == "debian"
    assert catalog.lookup("busybox:1.36").shell == "ash" and catalog.lookup("ubuntu:24.04").shell == "dash"
    assert catalog.lookup("registry.k8s.io/pause:3.10").shell == ""
    assert catalog.lookup("redis:7").version == "7.4.4" and catalog.lookup("redis:7.2").version == "7.2.9"
    assert catalog.lookup("postgres:16").cmd == ("postgres",)
    assert not catalog.lookup("busybox").long_running and catalog.lookup("memcached").long_running


def test_a_digest_reference_finds_its_tag():
    image = catalog.lookup("nginx:1.25")
    assert catalog.lookup(f"nginx@{image.digest}") == image
    assert catalog.lookup(f"busybox@{image.digest}") is None


def test_the_registrys_words_for_what_it_does_not_have():
    assert catalog.lookup("nginx:1.99") is None
    assert catalog.pull_error("nginx:1.99") == (
        "Error response from daemon: manifest for nginx:1.99 not found: manifest unknown: manifest unknown"
    )
    assert catalog.pull_error("nginxx") == (
        "Error response from daemon: pull access denied for nginxx, repository does not exist or may "
        "require 'docker login': denied: requested access to the resource is denied"
    )
    assert catalog.pull_error("registry.k8s.io/pause:9.9") == (
        "Error response from daemon: manifest for registry.k8s.io/pause:9.9 not found: manifest unknown: "
        'Failed to fetch "9.9"'
    )
    assert catalog.pull_error("registry.example.com/team/app:1") == (
        'Error response from daemon: Get "https://registry.example.com/v2/": dial tcp: lookup '
        "registry.example.com on 127.0.0.53:53: no such host"
    )


@pytest.mark.parametrize(
    ("image", "error"),
    [
        ("NGINX:1.25", "invalid reference format: repository name (library/NGINX) must be lowercase"),
        ("nginx:1.25:1", "invalid reference format"),
        ("nginx::latest", "invalid reference format"),
        ("nginx@sha256:abc", "invalid reference format"),
        ("nginx@md5:" + "a" * 32, "unsupported digest algorithm"),
        ("nginx@sha256:" + "a" * 40, "invalid checksum digest length"),
        ("a" * 64, f"invalid repository name ({'a' * 64}), cannot specify 64-byte hexadecimal strings"),
        ("Registry.Example.com/App", "invalid reference format: repository name (App) must be lowercase"),
    ],
)
def test_references_the_kubelet_cannot_parse(image, error):
    assert invalid_image_message(image) == (
        f'Failed to apply default image tag "{image}": couldn\'t parse image name "{image}": {error}'
    )


def test_a_hostile_reference_is_judged_in_linear_time():
    # (a+)+! in a backtracking engine: exponential in the length; RE2 answers at once.
    assert invalid_image_message("a" * 5000 + "!") is not None
    assert parse("registry.k8s.io/e2e-test-images/agnhost:2.39").familiar == (
        "registry.k8s.io/e2e-test-images/agnhost"
    )


def _events(cluster, name: str) -> list[tuple[str, str, str]]:
    events, _ = api.list_objects(cluster, "Event", "default")
    ours = [e for e in events if e["involvedObject"]["name"] == name]
    ours.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["type"], e["reason"], e["message"]) for e in ours]


def _waiting(cluster, name: str) -> dict:
    pod = api.get(cluster, "Pod", "default", name)
    return pod["status"]["containerStatuses"][0]["state"]["waiting"]


@pytest.mark.django_db(transaction=True)
def test_an_unknown_tag_cycles_through_err_image_pull_and_image_pull_back_off(demo, fake_clock):
    drive()
    pod = example("pod-nodename.yaml")
    pod["metadata"]["name"] = "typo"
    pod["spec"]["containers"][0]["image"] = "nginx:1.99"
    api.create(demo, pod, KUBECTL)
    drive()
    error = (
        "Error response from daemon: manifest for nginx:1.99 not found: manifest unknown: manifest unknown"
    )
    assert _waiting(demo, "typo") == {"reason": "ErrImagePull", "message": error}
    assert _events(demo, "typo") == [
        ("Normal", "Pulling", 'Pulling image "nginx:1.99"'),
        ("Warning", "Failed", f'Failed to pull image "nginx:1.99": {error}'),
        ("Warning", "Failed", "Error: ErrImagePull"),
    ]
    fake_clock.advance(pulls.POD_WORKER_RESYNC)
    drive()
    assert _waiting(demo, "typo") == {
        "reason": "ImagePullBackOff",
        "message": f'Back-off pulling image "nginx:1.99": ErrImagePull: {error}',
    }
    assert _events(demo, "typo")[3:] == [
        ("Normal", "BackOff", 'Back-off pulling image "nginx:1.99"'),
        ("Warning", "Failed", "Error: ImagePullBackOff"),
    ]
    # The back-off holds the next pull for 10 s, then 20 s: no pull before the window ends.
    fake_clock.advance(pulls.backoff_window(0) - pulls.POD_WORKER_RESYNC - 0.5)
    drive()
    assert _waiting(demo, "typo")["reason"] == "ImagePullBackOff"
    fake_clock.advance(0.5)
    drive()
    assert _waiting(demo, "typo")["reason"] == "ErrImagePull"
    events, _ = api.list_objects(demo, "Event", "default")
    pulling = [e for e in events if e["involvedObject"]["name"] == "typo" and e["reason"] == "Pulling"]
    assert [e["count"] for e in pulling] == [2]  # one event, counted, as kubectl shows `(x2 over …)`
    assert pulls.backoff_window(1) == 20 and pulls.backoff_window(10) == 300


@pytest.mark.django_db(transaction=True)
def test_a_malformed_reference_is_an_invalid_image_name(demo):
    drive()
    pod = example("pod-nodename.yaml")
    pod["metadata"]["name"] = "shouting"
    pod["spec"]["containers"][0]["image"] = "NGINX:1.25"
    api.create(demo, pod, KUBECTL)
    drive()
    message = (
        'Failed to apply default image tag "NGINX:1.25": couldn\'t parse image name "NGINX:1.25": '
        "invalid reference format: repository name (library/NGINX) must be lowercase"
    )
    assert _waiting(demo, "shouting") == {"reason": "InvalidImageName", "message": message}
    assert _events(demo, "shouting") == [
        ("Warning", "InspectFailed", message),
        ("Warning", "Failed", "Error: InvalidImageName"),
    ]


def test_the_docs_list_every_repository():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "images.md").read_text()
    for repository in catalog.repositories():
        short = repository.removeprefix("registry.k8s.io/")
        assert f"`{repository}`" in docs or f"`{short}`" in docs or short in docs, repository

"""Images as a registry has them, through the real kubectl: a tag that does not exist goes
ErrImagePull, then ImagePullBackOff, with Docker's words in the events; a reference that does not
parse is an InvalidImageName; the tags course material uses run."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

MANIFEST_UNKNOWN = (
    "Error response from daemon: manifest for nginx:1.99 not found: manifest unknown: manifest unknown"
)


def _status_column(kubectl, name: str) -> str:
    result = kubectl.run("get", "pod", name, "--no-headers")
    return result.stdout.split()[2] if result.returncode == 0 and result.stdout.split() else ""


def test_an_unknown_tag_goes_err_image_pull_then_image_pull_back_off(kubectl):
    watch = kubectl.popen("get", "pods", "-w", "--no-headers", "--field-selector=metadata.name=typo")
    try:
        kubectl.ok("run", "typo", "--image=nginx:1.99")
        assert wait_for(lambda: _status_column(kubectl, "typo") == "ImagePullBackOff", 20)
        time.sleep(0.5)
    finally:
        watch.terminate()
        seen = watch.communicate(timeout=10)[0]
    statuses = [line.split()[2] for line in seen.splitlines() if line.strip()]
    assert "ErrImagePull" in statuses and "ImagePullBackOff" in statuses, seen
    assert statuses.index("ErrImagePull") < statuses.index("ImagePullBackOff"), seen
    assert seen.splitlines()[-1].split()[1:4] == ["0/1", "ImagePullBackOff", "0"], seen

    described = kubectl.ok("describe", "pod", "typo")
    assert f'Failed to pull image "nginx:1.99": {MANIFEST_UNKNOWN}' in described
    assert "Error: ErrImagePull" in described and "Error: ImagePullBackOff" in described
    assert 'Back-off pulling image "nginx:1.99"' in described
    assert "Reason:       ImagePullBackOff" in described

    pod = json.loads(kubectl.ok("get", "pod", "typo", "-o", "json"))
    waiting = pod["status"]["containerStatuses"][0]["state"]["waiting"]
    assert waiting == {
        "reason": "ImagePullBackOff",
        "message": f'Back-off pulling image "nginx:1.99": ErrImagePull: {MANIFEST_UNKNOWN}',
    }
    logs = kubectl.run("logs", "typo")
    assert logs.stderr.strip() == (
        'Error from server (BadRequest): container "typo" in pod "typo" is waiting to start: '
        "trying and failing to pull image"
    )
    kubectl.ok("delete", "pod", "typo", "--wait=false")


def test_an_unknown_repository_is_denied(kubectl):
    kubectl.ok("run", "nosuch", "--image=nginxx")
    assert wait_for(lambda: "pull access denied" in kubectl.ok("describe", "pod", "nosuch"), 20)
    described = kubectl.ok("describe", "pod", "nosuch")
    assert (
        'Failed to pull image "nginxx": Error response from daemon: pull access denied for nginxx, '
        "repository does not exist or may require 'docker login': denied: requested access to the "
        "resource is denied"
    ) in described
    kubectl.ok("delete", "pod", "nosuch", "--wait=false")


SHOUTING = """
apiVersion: v1
kind: Pod
metadata:
  name: shout
spec:
  containers:
  - name: web
    image: NGINX:1.25
"""


def test_a_malformed_reference_is_an_invalid_image_name(kubectl):
    # kubectl run checks the reference itself; a manifest reaches the kubelet with it.
    refused = kubectl.run("run", "shout", "--image=NGINX:1.25")
    assert refused.stderr == 'error: Invalid image name "NGINX:1.25": invalid reference format\n'
    kubectl.ok("apply", "-f", "-", stdin=SHOUTING)
    assert wait_for(lambda: _status_column(kubectl, "shout") == "InvalidImageName", 20)
    described = kubectl.ok("describe", "pod", "shout")
    message = (
        'Failed to apply default image tag "NGINX:1.25": couldn\'t parse image name "NGINX:1.25": '
        "invalid reference format: repository name (library/NGINX) must be lowercase"
    )
    assert message in described and "InspectFailed" in described
    assert "Error: InvalidImageName" in described
    kubectl.ok("delete", "pod", "shout", "--wait=false")


@pytest.mark.parametrize(
    "image",
    ["nginx:1.28", "busybox:1.35", "redis:7.2", "memcached:1.6", "curlimages/curl:8.8.0"],
)
def test_tags_of_course_material_run(kubectl, image):
    name = "tag-" + image.replace("/", "-").replace(":", "-").replace(".", "-")
    # The tools' images end their default command at once: give them one that keeps running.
    args = ["--command", "--", "sleep", "3600"] if image.startswith(("busybox", "curlimages")) else []
    kubectl.ok("run", name, f"--image={image}", *args)
    try:
        running = wait_for(lambda: _status_column(kubectl, name) == "Running", 30)
        assert running, kubectl.ok("describe", "pod", name)
    finally:
        kubectl.ok("delete", "pod", name, "--wait=false")

"""The kubelet's image manager, in words and times (pkg/kubelet/images/image_manager.go):
what a failed pull reports, and the back-off between pulls.

A reference that does not parse fails before any pull: an `InspectFailed` event and the
`InvalidImageName` state, with distribution/reference's error (`reference.py`). A pull the
registry refuses gives `Failed to pull image …` and `Error: ErrImagePull`; the image back-off
(10 s, doubling to 5 minutes, per pod and image) then holds the next pull, and the pod worker's
sync during the back-off reports `Back-off pulling image …` with `ImagePullBackOff`, whose message
carries the last pull's error (`Back-off pulling image "x": ErrImagePull: …`, since 1.32).
"""

from __future__ import annotations

from dataclasses import dataclass

IMAGE_BACKOFF_INITIAL = 10.0  # the kubelet's backOffPeriod
IMAGE_BACKOFF_MAX = 300.0  # MaxContainerBackOff
POD_WORKER_RESYNC = 1.0


@dataclass(frozen=True, slots=True)
class PullFailure:
    """Why a container's image could not be had: `reason` is the waiting state's (ErrImagePull or
    InvalidImageName), `message` the runtime's or the parser's words."""

    container: str
    image: str
    reason: str
    message: str

    @property
    def backs_off(self) -> bool:
        """A refused pull starts the image back-off; a name that does not parse is never pulled."""
        return self.reason == "ErrImagePull"


def backoff_window(failures: int) -> float:
    """How long the image back-off holds the next pull after the `failures`-th failure (0-based)."""
    return min(IMAGE_BACKOFF_INITIAL * 2**failures, IMAGE_BACKOFF_MAX)


def backoff_sync_delay(failures: int) -> float:
    """When the pod worker's next sync finds the pull backing off: a second after the failed one
    (the failure changed the pod's status, so it syncs again at once), inside any window."""
    return min(POD_WORKER_RESYNC, backoff_window(failures) / 2)


def failed_to_pull(image: str, error: str) -> str:
    return f'Failed to pull image "{image}": {error}'


def backing_off(image: str) -> str:
    """The BackOff event's message."""
    return f'Back-off pulling image "{image}"'


def backoff_state_message(image: str, error: str) -> str:
    """ImagePullBackOff's waiting message: the back-off and the last pull's error (prevPullErrMsg)."""
    return f"{backing_off(image)}: ErrImagePull: {error}"


def container_error(reason: str) -> str:
    """kuberuntime's Failed event when a container cannot start: `Error: ErrImagePull`."""
    return f"Error: {reason}"

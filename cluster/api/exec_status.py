"""The Status objects the remote-command protocol sends on its error channel (3), as
kube-apiserver and the kubelet write them (`{"metadata":{},"status":"Success"}` and kin)."""

from __future__ import annotations

import json

from cluster.apiserver.errors import ApiError

ERROR_CHANNEL = 3
V5 = "v5.channel.k8s.io"
V4 = "v4.channel.k8s.io"


def channel_protocol(scope: dict) -> str | None:
    """The remote-command subprotocol to answer a WebSocket's offer with (v5, else v4), or None."""
    offered = scope.get("subprotocols") or []
    return V5 if V5 in offered else V4 if V4 in offered else None


def status_success() -> dict:
    return {"metadata": {}, "status": "Success"}


def status_exit(code: int, protocol: str) -> dict:
    """The Status for a non-zero exit. Over v5 kube-apiserver's stream translator re-wraps the
    kubelet's exit as client-go reports it; v4 reaches the kubelet (Docker runtime) directly."""
    inner = (
        f"command terminated with exit code {code}"
        if protocol == V5
        else (f"Error executing in Docker Container: {code}")
    )
    return {
        "metadata": {},
        "status": "Failure",
        "message": f"command terminated with non-zero exit code: {inner}",
        "reason": "NonZeroExitCode",
        "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
    }


def status_error(err: ApiError) -> dict:
    status = {"metadata": {}, "status": "Failure", "message": err.message, "reason": err.reason}
    if err.details:
        status["details"] = err.details
    status["code"] = err.code
    return status


def status_frame(status: dict) -> bytes:
    return bytes([ERROR_CHANNEL]) + json.dumps(status, separators=(",", ":")).encode()

"""What the Deployment controller's logic writes and reads besides its informer: client-go's
ReplicaSets and Deployments clients and its event recorder, as one small Protocol.

The controller's own implementation writes through the API server (`controller.ApiClient`);
upstream's tests use a fake clientset that records the actions, and so do ours.
"""

from __future__ import annotations

from typing import Protocol


class DeploymentClient(Protocol):
    def create_replica_set(self, rs: dict) -> dict: ...  # ApiError 409 when the name is taken

    def update_replica_set(self, rs: dict) -> dict: ...  # ApiError 409 on a stale resourceVersion

    def delete_replica_set(self, rs: dict) -> None: ...

    def get_replica_set(self, namespace: str, name: str) -> dict | None: ...  # the lister's copy

    def update_deployment(self, d: dict) -> dict: ...

    def update_status(self, d: dict) -> dict: ...

    def event(self, obj: dict, type_: str, reason: str, message: str) -> None: ...

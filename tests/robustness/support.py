"""Helpers for the robustness tests against a live server: the hostile client, counts, waits."""

from __future__ import annotations

from bench.hostile.client import Client
from tests.scaleout.support import free_port

LABEL = "app=x"  # the label of every object bench.hostile.bodies makes


def start(processes, control_plane: bool = True) -> Client:
    port = free_port()
    processes.server = processes.serve(port, control_plane=control_plane)
    processes.port = port
    client = Client(f"http://127.0.0.1:{port}")
    assert client.allow_pods(2000).status == 200  # the demo's classroom quota holds 200 pods
    return client


def pods(client: Client) -> list[dict]:
    answer = client.request("GET", client.path("Pod", None) + f"?labelSelector={LABEL}")
    assert answer.status == 200, answer.body[:300]
    return answer.json()["items"]  # type: ignore[index]


def not_being_deleted(client: Client) -> list[dict]:
    return [pod for pod in pods(client) if not pod["metadata"].get("deletionTimestamp")]


def orphans(client: Client) -> list[str]:
    """Objects whose controller ownerReference names an object that does not exist."""
    kinds = ("ReplicationController", "ReplicaSet", "Deployment", "Pod")
    objects = [obj for kind in kinds for obj in client.items(kind)]
    uids = {obj["metadata"]["uid"] for obj in objects}
    found = []
    for obj in objects:
        refs = [ref for ref in obj["metadata"].get("ownerReferences") or [] if ref.get("controller")]
        # Only owners of the kinds read here: kube-system's mirror pods name their Node, its
        # DaemonSets' pods their DaemonSet.
        if refs and refs[0].get("kind") in kinds and refs[0]["uid"] not in uids:
            found.append(f"{obj['kind']} {obj['metadata']['name']}")
    return found

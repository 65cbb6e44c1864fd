"""controller.ActivePods ordering: which pods a controller deletes first when it has too many."""

from __future__ import annotations

from cluster.controllers.pods import deletion_rank


def pod(name: str, *, node: str = "node1", phase: str = "Running", ready: bool = True, created: str, rv: int):
    return {
        "metadata": {"name": name, "creationTimestamp": created, "resourceVersion": str(rv)},
        "spec": {"nodeName": node} if node else {},
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": str(ready)}]},
    }


def first_to_delete(pods: list[dict]) -> str:
    return sorted(pods, key=deletion_rank)[0]["metadata"]["name"]


def test_unassigned_pending_and_unready_pods_go_before_running_ones():
    running = pod("a", created="2026-01-01T00:00:00Z", rv=1)
    assert (
        first_to_delete([running, pod("b", node="", phase="Pending", created="2026-01-01T00:00:00Z", rv=2)])
        == "b"
    )
    assert first_to_delete([running, pod("c", phase="Pending", created="2026-01-01T00:00:00Z", rv=2)]) == "c"
    assert first_to_delete([running, pod("d", ready=False, created="2026-01-01T00:00:00Z", rv=2)]) == "d"


def test_the_newer_pod_goes_first():
    older = pod("zz-older", created="2026-01-01T00:00:00Z", rv=9)
    newer = pod("aa-newer", created="2026-01-01T00:00:05Z", rv=2)
    assert first_to_delete([older, newer]) == "aa-newer"


def test_pods_created_in_the_same_second_lose_the_newer_write_first_whatever_their_names():
    # The course order: rc-nginx's three pods, then pod-example applied in the same second.
    same = "2026-01-01T00:00:00Z"
    rc_pods = [
        pod(f"nginx-{s}", created=same, rv=rv) for s, rv in (("abcde", 10), ("fghjk", 11), ("lmnpq", 12))
    ]
    newcomer = pod("pod-example", created=same, rv=20)
    assert first_to_delete([newcomer, *rc_pods]) == "pod-example"
    assert first_to_delete([*rc_pods, newcomer]) == "pod-example"

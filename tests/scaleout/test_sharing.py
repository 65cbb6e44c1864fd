"""Leadership shared out: two control-plane processes split sixty sandboxes, and when one is
killed the other takes its sandboxes over (aimed at 5 s; the figure is printed), with no pod lost
or created twice."""

from __future__ import annotations

import time

from tests.scaleout import support, workloads
from tests.scaleout.support import free_port, wait_for

SANDBOXES = 60
BUSY = 8  # sandboxes of the process to be killed that get an RC just before it dies
REPLICAS = 3
TAKEOVER_BOUND = 10.0  # seconds; see the assertion

# One small node per sandbox, as a lab's starting state would have it.
CREATE_SANDBOXES = f"""
from cluster.apiserver import service as api
from cluster.models import Cluster
NODE = '''apiVersion: v1
kind: Node
metadata: {{name: node1}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
'''
for i in range({SANDBOXES}):
    cluster = Cluster.objects.create(name=f"lab-w47-{{i:02d}}", public=False, pace_ms=0)
    api.apply_manifests(cluster, NODE, api.Actor(client="api", detail="test"))
"""

HOLDERS = """
SELECT c.name, o.body->'spec'->>'holderIdentity' FROM cluster_apiobject o
JOIN cluster_cluster c ON c.id = o.cluster_id
WHERE o.kind = 'Lease' AND o.namespace = 'kube-system' AND o.name = 'kubesim-controlplane'
AND c.name LIKE 'lab-w47-%%'
"""

PODS = """
SELECT c.name, count(*) FROM cluster_watchevent e JOIN cluster_cluster c ON c.id = e.cluster_id
WHERE e.kind = 'Pod' AND e.type = 'ADDED' GROUP BY c.name
"""


def holders(conn) -> dict[str, str]:
    return dict(support.query(conn, HOLDERS))


def test_two_control_planes_split_sixty_sandboxes_and_one_takes_over_the_others(scaled):
    port = free_port()
    scaled.serve(port)
    scaled.manage("shell", "-c", CREATE_SANDBOXES)
    first = scaled.controlplane("cp-a")
    scaled.controlplane("cp-b")
    with support.db_connection(scaled.env) as conn:

        def split() -> dict[str, list[str]]:
            by_holder: dict[str, list[str]] = {}
            for name, holder in holders(conn).items():
                by_holder.setdefault(holder or "", []).append(name)
            return by_holder

        def shared_out():
            now = split()
            counts = [len(now.get("cp-a", [])), len(now.get("cp-b", []))]
            return now if sum(counts) == SANDBOXES and abs(counts[0] - counts[1]) <= 6 else None

        try:
            before = wait_for(shared_out, 90, "the sandboxes to be shared out 30/30 (±3)", interval=0.5)
        except AssertionError:
            raise AssertionError(f"{split()}\n{scaled.log_tail()}") from None
        time.sleep(3.0)  # settled: nobody hands anything over any more
        # Read again with every lease held: on a loaded machine a renewal may be late right then,
        # and a lease between holders is nobody's for that moment.
        before = wait_for(shared_out, 30, "every sandbox led after the settling", interval=0.2)
        assert abs(len(before["cp-a"]) - SANDBOXES / 2) <= 3, {k: len(v) for k, v in before.items()}

        busy = sorted(before["cp-a"])[:BUSY]
        for name in busy:
            workloads.create_rc(f"http://127.0.0.1:{port}/clusters/{name}", "web", REPLICAS)
        scaled.kill(first)
        killed = time.monotonic()
        moved: dict[str, float] = {}

        def taken_over() -> bool:
            for name, holder in holders(conn).items():
                if holder == "cp-b" and name not in moved:
                    moved[name] = time.monotonic() - killed
            return len(moved) == SANDBOXES

        wait_for(taken_over, 20, "cp-b to lead every sandbox", interval=0.05)
        takeover = max(moved.values())
        timeline = sorted(round(moved[name], 1) for name in before["cp-a"])

        def all_running() -> bool:
            return all(
                workloads.running(f"http://127.0.0.1:{port}/clusters/{name}", "web") == REPLICAS
                for name in busy
            )

        wait_for(all_running, 60, f"{REPLICAS} Running pods in each busy sandbox", interval=0.5)
        time.sleep(1.0)  # the last steps' transactions
        added = dict(support.query(conn, PODS))
        problems = [p for name in busy for p in support.integrity_problems(conn, name)]
        untouched = sorted(before["cp-b"])
        lease_moves = [
            support.query(
                conn,
                "SELECT o.body->'spec'->>'leaseTransitions' FROM cluster_apiobject o JOIN cluster_cluster c "
                "ON c.id = o.cluster_id WHERE c.name = %s AND o.kind = 'Lease'",
                (name,),
            )[0][0]
            for name in untouched
        ]

    print(f"split {len(before['cp-a'])}/{len(before['cp-b'])}; takeover {timeline}")  # shown with -s
    # The aim is 5 s (3.3-4.4 s on a quiet 2-core machine, 6.3 s under load); the bound here is
    # what no lease timing explains, so that a busy machine does not fail the suite.
    assert takeover <= TAKEOVER_BOUND, (
        f"the takeover took {takeover:.1f} s (each of cp-a's sandboxes: {timeline})"
    )
    assert {name: added.get(name) for name in busy} == dict.fromkeys(busy, REPLICAS), "a pod lost or twice"
    assert problems == []
    for name in busy:
        pods = workloads.pods(f"http://127.0.0.1:{port}/clusters/{name}", "web")
        assert len(pods) == REPLICAS and all(pod["spec"].get("nodeName") == "node1" for pod in pods)
    assert len(untouched) >= SANDBOXES / 2 - 3 and lease_moves, "cp-b's own sandboxes stayed with it"

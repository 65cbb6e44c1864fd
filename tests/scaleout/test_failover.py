"""Leader election: kill the leading control plane mid-way through an RC; the standby finishes it."""

from __future__ import annotations

import time

from tests.scaleout import support, workloads
from tests.scaleout.support import free_port, wait_for


def test_standby_takes_over_within_5_s_and_finishes_the_rc_with_every_pod_bound_once(scaled, tmp_path):
    scaled.env["KUBESIM_PACE_MS"] = "60"  # slow enough that the leader dies mid-way through the RC
    port = free_port()
    scaled.serve(port)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    leader = scaled.controlplane("cp-a")
    wait_for(lambda: workloads.holder(base) == "cp-a", 20, "cp-a to lead")
    scaled.controlplane("cp-b")
    time.sleep(1.0)  # cp-b reads the lease: it stands by

    workloads.create_rc(base, "web", 20)
    wait_for(lambda: workloads.bound(base, "web") >= 4, 30, "the first pods to be bound")
    assert workloads.running(base, "web") < 20, "the RC finished before the leader could be killed"
    scaled.kill(leader)
    killed = time.monotonic()
    wait_for(lambda: workloads.holder(base) == "cp-b", 10, "cp-b to take the lease", interval=0.05)
    takeover = time.monotonic() - killed

    wait_for(lambda: workloads.running(base, "web") == 20, 60, "20 Running pods")
    time.sleep(1.0)  # the last steps' transactions
    names = [pod["metadata"]["name"] for pod in workloads.pods(base, "web")]
    trace = workloads.trace_of(base, "ReplicationController", "web")
    lease = workloads.lease(base)["spec"]
    with support.db_connection(scaled.env) as conn:
        added = support.query(
            conn, "SELECT count(*) FROM cluster_watchevent WHERE kind = 'Pod' AND type = 'ADDED'"
        )[0][0]
        problems = support.integrity_problems(conn, "demo")

    assert takeover <= 5.0, f"takeover took {takeover:.1f} s"
    assert (lease["holderIdentity"], lease["leaseTransitions"]) == ("cp-b", 1)
    assert len(names) == 20 and added == 20, "a pod was lost or created twice"
    assert workloads.trace_problems(trace, names) == []
    assert problems == []

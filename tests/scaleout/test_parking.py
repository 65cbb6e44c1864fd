"""The scale-out profile parks an idle sandbox as the embedded default does: its leader keeps the
Lease (renewed without a write to the cluster), nothing moves its revision, and the next write
through another process wakes it and is acted on."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from cluster.kubeapi.humanize import parse_time
from tests.scaleout import support, workloads
from tests.scaleout.support import free_port, wait_for

REVISION = "SELECT revision FROM cluster_cluster WHERE name = 'demo'"


def test_an_idle_sandbox_parks_and_a_write_through_another_process_wakes_it(scaled):
    scaled.env["KUBESIM_PARK_AFTER_SECONDS"] = "2"
    port = free_port()
    scaled.serve(port)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    scaled.controlplane("cp-a")
    wait_for(lambda: workloads.holder(base) == "cp-a", 20, "cp-a to lead")
    with support.db_connection(scaled.env) as conn:

        def revision() -> int:
            return support.query(conn, REVISION)[0][0]

        def still_for(seconds: float):
            before = revision()
            time.sleep(seconds)
            return before if revision() == before else None

        # Quiet for 15 s, then parked at the next look (every 5 s): from then on nothing is written.
        parked_at = wait_for(lambda: still_for(6.0), 60, "the sandbox's revision to stop moving")
        time.sleep(4.0)
        assert revision() == parked_at, "a parked sandbox writes nothing (its Lease is renewed apart)"
        # A reader brings renewTime up to cp-a's last renewal, an update as upstream's renewals are.
        first = workloads.lease(base)
        time.sleep(2.0)
        second = workloads.lease(base)
        assert second["spec"]["holderIdentity"] == "cp-a"
        renewed = [parse_time(lease["spec"]["renewTime"]) for lease in (first, second)]
        assert 1.0 <= (renewed[1] - renewed[0]).total_seconds() <= 3.5, renewed
        assert datetime.now(UTC) - renewed[1] < timedelta(seconds=3)
        versions = [int(lease["metadata"]["resourceVersion"]) for lease in (first, second)]
        assert versions[1] > versions[0]

        workloads.create_rc(base, "web", 2)
        wait_for(lambda: workloads.running(base, "web") == 2, 30, "2 Running pods after the wake")

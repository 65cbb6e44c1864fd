"""The broadcast across processes and to slow clients, through real Daphne processes and sockets."""

from __future__ import annotations

import asyncio
import signal
import time

from bench.wsclient import connect
from tests.scaleout import workloads
from tests.scaleout.support import free_port, request, wait_for

PATH = "/ws/clusters/demo/"


def _steps(messages: list[dict], trace: str) -> list[tuple[int, int]]:
    return [
        (m["seq"], m["step"])
        for m in messages
        if m.get("type") in ("flow.step", "flow.end") and m["trace"] == trace
    ]


def test_a_client_on_each_of_two_daphne_processes_gets_the_same_steps_in_the_same_order(scaled):
    ports = free_port(), free_port()
    for port in ports:
        scaled.serve(port)
    scaled.controlplane("cp")
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    base = f"{urls[0]}/clusters/demo"
    wait_for(lambda: workloads.holder(base) == "cp", 20, "the control plane to lead")

    async def watch() -> tuple[list[dict], list[dict]]:
        sockets = [await connect(url, PATH) for url in urls]
        for sock in sockets:
            assert (await sock.next_message())["type"] == "snapshot"
        marks = [len(sock.frames) for sock in sockets]
        await asyncio.to_thread(workloads.create_rc, base, "web", 3)
        await asyncio.to_thread(wait_for, lambda: workloads.running(base, "web") == 3, 30, "3 Running pods")
        await asyncio.sleep(1.5)  # the last steps reach both processes
        got = [[m.data for m in sock.messages(mark)] for sock, mark in zip(sockets, marks, strict=True)]
        for sock in sockets:
            sock.close()
        return got[0], got[1]

    first, second = asyncio.run(watch())
    trace = workloads.trace_of(base, "ReplicationController", "web")
    expected = [(s["seq"], s["step"]) for s in trace["steps"]]
    assert len(expected) >= 6 + 3 * 7
    assert _steps(first, trace["id"]) == expected
    assert _steps(second, trace["id"]) == expected
    revisions = [[m["revision"] for m in got if m["type"].startswith("object.")] for got in (first, second)]
    common = max(revisions[0][0], revisions[1][0])
    assert [r for r in revisions[0] if r >= common] == [r for r in revisions[1] if r >= common]
    assert all(m["type"] != "resync" for m in first + second)


def test_a_client_that_stops_reading_gets_a_resync_while_another_stays_on_time(embedded):
    embedded.env["KUBESIM_CLIENT_BACKLOG_BYTES"] = str(256 * 1024)
    port = free_port()
    embedded.serve(port)
    url = f"http://127.0.0.1:{port}"
    base = f"{url}/clusters/demo"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "big"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
    }
    request(f"{base}/api/v1/namespaces/default/pods", "POST", pod)
    patches = 150
    blob = "x" * 40_000  # each change is a ~40 kB message: 6 MB in all, more than the socket buffers

    def patch(index: int) -> float:
        body = {"metadata": {"annotations": {"blob": f"{index}{blob}"}}}
        request(f"{base}/api/v1/namespaces/default/pods/big", "PATCH", body, "application/merge-patch+json")
        return time.perf_counter()

    async def run() -> tuple[list, list[float], list]:
        slow = await connect(url, PATH, rcvbuf=4096)
        fast = await connect(url, PATH)
        for sock in (slow, fast):
            assert (await sock.next_message())["type"] == "snapshot"
        slow.pause_reading()
        written = [await asyncio.to_thread(patch, index) for index in range(patches)]
        await asyncio.sleep(1.0)
        on_time = fast.messages(1)
        slow.resume_reading()
        await asyncio.sleep(1.5)  # the slow client drains its backlog, then gets the resync
        await asyncio.to_thread(patch, patches)  # after the resync, the stream goes on
        await asyncio.sleep(1.0)
        received = slow.messages(1)
        slow.close()
        fast.close()
        return on_time, written, received

    on_time, written, received = asyncio.run(run())
    modified = [m for m in on_time if m.data["type"] == "object.modified" and m.data["kind"] == "Pod"]
    assert len(modified) == patches, "the reading client missed changes"
    lag = [m.at - done for m, done in zip(modified, written, strict=True)]
    assert max(lag) < 1.0, f"the reading client was held up: {max(lag):.2f} s behind"
    types = [m.data["type"] for m in received]
    assert "resync" in types, "the slow client was never told to resync"
    after_resync = received[types.index("resync") + 1 :]
    last = [m.data for m in after_resync if m.data["type"] == "object.modified"]
    assert last and last[-1]["object"]["metadata"]["annotations"]["blob"].startswith(str(patches))
    assert len([t for t in types if t == "object.modified"]) < patches, "nothing was dropped: no overflow"


def test_the_page_learns_a_new_leader_from_the_lease_but_not_every_renewal(scaled):
    port = free_port()
    scaled.serve(port)
    url = f"http://127.0.0.1:{port}"
    base = f"{url}/clusters/demo"
    first = scaled.controlplane("cp-a")
    wait_for(lambda: workloads.holder(base) == "cp-a", 20, "cp-a to lead")
    scaled.controlplane("cp-b")

    async def watch() -> tuple[dict, list[dict]]:
        sock = await connect(url, PATH)
        snapshot = await sock.next_message()
        await asyncio.sleep(2.0)  # two renewals by cp-a: not news for the page
        await asyncio.to_thread(scaled.kill, first, signal.SIGTERM)  # hands the lease back
        await asyncio.to_thread(wait_for, lambda: workloads.holder(base) == "cp-b", 5, "cp-b to lead")
        await asyncio.sleep(2.5)  # the change, then renewals by cp-b
        leases = [m.data for m in sock.messages(1) if m.data.get("kind") == "Lease"]
        sock.close()
        return snapshot, leases

    snapshot, leases = asyncio.run(watch())
    assert snapshot["leader"]["holder"] == "cp-a"
    holders = [m["object"]["spec"].get("holderIdentity", "") for m in leases]
    assert holders == ["", "cp-b"], "the page should see the release and the new holder, no renewals"
    assert request(f"{base}/snapshot")["leader"]["holder"] == "cp-b"  # the resync path shows it too

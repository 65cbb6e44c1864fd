"""The hostile cases `manage.py bench_abuse` runs against a live server.

Each case returns the HTTP status codes it got (every one of them should be a Status, never 500)
and what it measured; the command sums them up.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from collections import Counter
from dataclasses import dataclass, field

from bench.hostile.bodies import KINDS, dotted, put, valid, wrong_bodies
from bench.hostile.client import APPLY, JSON, JSON_PATCH, MERGE, STRATEGIC, Answer, Client
from cluster.apiserver.kinds import kind_info


@dataclass
class Outcome:
    name: str
    codes: Counter = field(default_factory=Counter)
    not_status: int = 0  # error answers that were not a Kubernetes Status
    notes: list[str] = field(default_factory=list)

    def count(self, answer: Answer) -> Answer:
        self.codes[answer.status] += 1
        if answer.status >= 400 and not answer.is_status():
            self.not_status += 1
        return answer


def _pods(client: Client, label: str = "app=x") -> list[dict]:
    answer = client.request("GET", client.path("Pod", None) + f"?labelSelector={label}")
    return answer.json()["items"] if answer.status == 200 else []  # type: ignore[index]


def orphans(client: Client) -> int:
    """Workloads and pods whose controller ownerReference names an object that does not exist
    (the owner looked up in its own kind: kube-system's pods belong to DaemonSets and Nodes)."""
    kinds = ("ReplicationController", "ReplicaSet", "Deployment", "Pod")
    objects = [obj for kind in kinds for obj in client.items(kind)]
    owners: dict[str, set[str]] = {}
    missing = 0
    for obj in objects:
        ref = next((r for r in obj["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
        if ref is None:
            continue
        kind = ref.get("kind", "")
        if kind not in owners:
            owners[kind] = {o["metadata"]["uid"] for o in client.items(kind)} if kind_info(kind) else set()
        missing += ref.get("uid") not in owners[kind]
    return missing


def _wait_for_no_pods(client: Client, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while (left := len(_pods(client))) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def huge_replicas(client: Client) -> Outcome:
    out = Outcome("replicas above int32 (RC, ReplicaSet, Deployment, scale)")
    for kind in ("ReplicationController", "ReplicaSet", "Deployment"):
        body = valid(kind, "huge")
        body["spec"]["replicas"] = 2**40
        out.count(client.create(body))
    body = valid("ReplicationController", "small")
    out.count(client.create(body))
    out.count(client.scale("ReplicationController", "small", 2**40))
    out.count(client.delete("ReplicationController", "small"))
    return out


def runaway(client: Client, replicas: int, stop: str, after: float) -> Outcome:
    """A workload of `replicas` told to stop (`delete` or `scale`) `after` seconds."""
    out = Outcome(f"RC of {replicas:,} replicas, {stop} after {after:g} s")
    body = valid("ReplicationController", "runaway")
    body["spec"]["replicas"] = replicas
    out.count(client.create(body))
    time.sleep(after)
    created = len(_pods(client))
    if stop == "scale":
        out.count(client.scale("ReplicationController", "runaway", 0))
    else:
        out.count(client.delete("ReplicationController", "runaway"))
    left_10s = _wait_for_no_pods(client, 10)
    out.notes.append(f"{created} pods when told; {left_10s} left 10 s later")
    if stop == "scale":
        out.count(client.delete("ReplicationController", "runaway"))
    out.notes.append(f"{_wait_for_no_pods(client, 35)} pods left at the end")
    return out


def pods_deleted_before_their_rc(client: Client) -> Outcome:
    out = Outcome("RC of 20 whose pods are deleted just before it")
    body = valid("ReplicationController", "twenty")
    body["spec"]["replicas"] = 20
    out.count(client.create(body))
    deadline = time.monotonic() + 30
    while len(_pods(client)) < 20 and time.monotonic() < deadline:
        time.sleep(0.3)
    for pod in _pods(client):
        out.count(client.delete("Pod", pod["metadata"]["name"]))
    out.count(client.delete("ReplicationController", "twenty"))
    out.notes.append(f"{_wait_for_no_pods(client, 10)} pods left 10 s later")
    return out


def wrong_types(client: Client, every: int) -> Outcome:
    """Wrong JSON types in every field of every kind, through create, update, each patch and /apply."""
    out = Outcome(f"wrong types (every {every}th field × value, 7 verbs)")
    for kind in KINDS:
        out.count(client.create(valid(kind, "victim")))
        url = client.path(kind, "default", "victim")
        for i, (path, value, body) in enumerate(wrong_bodies(kind, "victim")):
            if i % every:
                continue
            out.count(client.request("POST", client.path(kind), put(valid(kind, "made"), path, value)))
            current = client.request("GET", url).json()
            changed = put(copy.deepcopy(current), path, value)  # type: ignore[arg-type]
            top = path[0]
            out.count(client.request("PUT", url, changed))
            out.count(client.request("PATCH", url, {top: changed[top]}, MERGE))
            out.count(client.request("PATCH", url, {top: changed[top]}, STRATEGIC))
            ops = [{"op": "add", "path": f"/{top}", "value": changed[top]}]
            out.count(client.request("PATCH", url, ops, JSON_PATCH))
            out.count(client.request("PATCH", url, json.dumps(body), APPLY))
            apply = client.request(
                "POST", f"/clusters/{client.cluster}/apply", json.dumps(body), "application/yaml"
            )
            out.count(apply)
            if {out.codes[500]} != {0} and not out.notes:
                out.notes.append(f"first 500: {kind} {dotted(path)} = {value!r}")
        out.count(client.delete(kind, "victim"))
    return out


def deep_and_undecodable(client: Client) -> Outcome:
    out = Outcome("nesting 101 / 1,000 / 100,000 levels; bytes that are not UTF-8 (every verb)")
    out.count(client.create(valid("ReplicationController", "target")))
    url = client.path("ReplicationController", "default", "target")
    for depth in (101, 1_000, 100_000):
        deep = '{"metadata":{"name":"deep","annotations":' + '{"a":' * depth + "1" + "}" * depth + "}}"
        out.count(client.request("POST", client.path("Pod"), deep, JSON))
        for media in (MERGE, STRATEGIC, APPLY):
            out.count(client.request("PATCH", url, deep, media))
        out.count(client.request("PATCH", url, "[" * depth + "]" * depth, JSON_PATCH))
        yaml = "a: " + "[" * depth + "]" * depth
        out.count(client.request("POST", f"/clusters/{client.cluster}/apply", yaml, "application/yaml"))
    raw = b'{"metadata":{"annotations":{"a":"\xff\xfe"}}}'
    out.count(client.request("POST", client.path("Pod"), raw, JSON))
    out.count(client.request("PUT", url, raw, JSON))
    for media in (MERGE, STRATEGIC, JSON_PATCH, APPLY):
        out.count(client.request("PATCH", url, raw, media))
    out.count(client.request("DELETE", url, raw, JSON))
    out.count(client.request("POST", f"/clusters/{client.cluster}/apply", raw, "application/yaml"))
    out.count(client.delete("ReplicationController", "target"))
    return out


def oversized_and_html(client: Client) -> Outcome:
    out = Outcome("a 2.9 MB annotation; HTML in a taint value, a label key and an annotation key")
    pod = valid("Pod", "annotated")
    pod["metadata"]["annotations"] = {"big": "x" * 2_900_000}
    out.count(client.create(pod))
    node = valid("Node", "evil")
    node["spec"]["taints"] = [{"key": "k", "value": "<img src=x onerror=alert(1)>", "effect": "NoSchedule"}]
    out.count(client.create(node))
    for where in ("labels", "annotations"):
        pod = valid("Pod", "keys")
        pod["metadata"][where] = {"<b>x</b>": "v"}
        out.count(client.create(pod))
    return out


async def _watch(client: Client, revision: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, int]:
    reader, writer = await asyncio.open_connection(client.host, client.port)
    path = client.path("Pod") + f"?watch=1&resourceVersion={revision}"
    headers = "".join(f"{k}: {v}\r\n" for k, v in client.headers(None).items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {client.host}\r\n{headers}\r\n".encode())
    status = await asyncio.wait_for(reader.readline(), 60)
    return reader, writer, int(status.split()[1]) if status else 0


def concurrent_watches(client: Client, count: int, open_files) -> Outcome:
    out = Outcome(f"{count} watches open at the same time, then closed")
    revision = int(client.request("GET", client.path("Pod")).json()["metadata"]["resourceVersion"])  # type: ignore[index]

    async def run() -> int:
        opened = await asyncio.gather(
            *(_watch(client, revision) for _ in range(count)), return_exceptions=True
        )
        peak = open_files()
        for item in opened:
            if isinstance(item, BaseException):
                out.notes.append(f"a watch failed: {item!r}")
                continue
            out.codes[item[2]] += 1
            item[1].close()
        return peak

    peak = asyncio.run(run())
    time.sleep(12.0)
    out.notes.append(f"open files while open {peak}, 12 s after closing {open_files()}")
    return out


def burst(client: Client, count: int) -> Outcome:
    out = Outcome(f"a burst of {count} connections")

    async def one() -> int | str:
        try:
            reader, writer = await asyncio.open_connection(client.host, client.port)
            path = client.path("Node", None)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {client.host}\r\nConnection: close\r\n\r\n".encode())
            status = await asyncio.wait_for(reader.readline(), 60)
            writer.close()
            return int(status.split()[1])
        except (ConnectionError, OSError, TimeoutError) as error:
            return type(error).__name__

    async def run() -> list:
        return await asyncio.gather(*(one() for _ in range(count)))

    for answer in asyncio.run(run()):
        if isinstance(answer, int):
            out.codes[answer] += 1
        else:
            out.notes.append(answer)
    resets = len(out.notes)
    out.notes = [f"{resets} connections reset or refused"]
    return out

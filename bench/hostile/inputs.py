"""The inputs that once answered 500 (`manage.py bench_abuse`): numbers past int64 and float64,
patch directives of the wrong type, nulls in lists, patches that are not objects, malformed
protobuf, arrays where objects belong (the console's endpoints too), a Service with thousands of
ports, `replicas: null`, flow settings of the wrong type and websocket frames that are not JSON."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

from django.conf import settings

from bench import wsclient
from bench.hostile.bodies import valid
from bench.hostile.browser import Browser
from bench.hostile.cases import Outcome
from bench.hostile.client import APPLY, JSON, JSON_PATCH, MERGE, STRATEGIC, Client

HUGE = "9" * 5000
NUMBERS = [HUGE, "-" + HUGE, "1" + "0" * 400, str(2**64), "1e400", "-1e400", "NaN", "Infinity"]
PROTOBUF = "application/vnd.kubernetes.protobuf"
CAPTURED = Path(settings.BASE_DIR) / "tests" / "fixtures" / "protobuf"
NULL_LISTS = [
    ("spec", "containers"),
    ("spec", "tolerations"),
    ("spec", "volumes"),
    ("spec", "initContainers"),
    ("metadata", "ownerReferences"),
    ("metadata", "finalizers"),
]
DIRECTIVES = [{"name": "c"}, [None], "x", 5, None]


def _with_generation(literal: str) -> str:
    text = json.dumps(valid("Pod", "numbers"))
    return text.replace('"metadata": {', f'"metadata": {{"generation": {literal}, ', 1)


def numbers(client: Client) -> Outcome:
    out = Outcome(
        f"numbers past int64 and float64 ({len(NUMBERS)} literals × create, 3 patches, scale, YAML)"
    )
    out.count(client.create(valid("ReplicationController", "numbers")))
    url = client.path("ReplicationController", "default", "numbers")
    for literal in NUMBERS:
        out.count(client.request("POST", client.path("Pod"), _with_generation(literal), JSON))
        patch = '{"spec":{"replicas":' + literal + "}}"
        for media in (MERGE, STRATEGIC, APPLY):
            out.count(client.request("PATCH", url, patch, media))
        out.count(client.request("PATCH", url + "/scale", patch, MERGE))
        yaml = f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: y\n  generation: {literal}\n"
        out.count(client.request("POST", f"/clusters/{client.cluster}/apply", yaml, "application/yaml"))
    out.count(client.delete("ReplicationController", "numbers"))
    return out


def directives_and_nulls(client: Client) -> Outcome:
    out = Outcome("patch directives of the wrong type, nulls in lists, patches that are not objects")
    out.count(client.create(valid("ReplicationController", "target")))
    url = client.path("ReplicationController", "default", "target")
    for value in DIRECTIVES:
        for key in ("$setElementOrder/containers", "$retainKeys", "$deleteFromPrimitiveList/args", "$patch"):
            body = {"spec": {"template": {"spec": {key: value}}}}
            for media in (MERGE, STRATEGIC, APPLY):
                out.count(client.request("PATCH", url, body, media))
    for where in NULL_LISTS:
        pod = valid("Pod", "nulls")
        pod[where[0]][where[1]] = [None]
        out.count(client.create(pod))
        body = {"spec": {"template": {where[0]: {where[1]: [None]}}}}
        for media in (MERGE, STRATEGIC, APPLY):
            out.count(client.request("PATCH", url, body, media))
    for text in ("null", "5", '"text"', "true", "[]", "[null]"):
        for media in (MERGE, STRATEGIC, JSON_PATCH, APPLY):
            out.count(client.request("PATCH", url, text, media))
        out.count(client.request("POST", client.path("Pod"), text, JSON))
        out.count(client.request("PUT", url, text, JSON))
        out.count(client.request("PUT", url + "/scale", text, JSON))
        out.count(client.request("DELETE", client.path("Pod", "default", "none"), text, JSON))
        out.count(client.request("POST", f"/clusters/{client.cluster}/policy", text, JSON))
    out.count(client.delete("ReplicationController", "target"))
    return out


def protobuf(client: Client, count: int = 326, seed: int = 45) -> Outcome:
    """Captured kubectl bodies with bytes flipped, inserted, cut and truncated (a fixed seed)."""
    out = Outcome(f"{count} malformed protobuf bodies")
    captured = [(path.stem, path.read_bytes()) for path in sorted(CAPTURED.glob("deployment-*.bin"))]
    rng = random.Random(seed)
    for _ in range(count):
        _, original = rng.choice(captured)
        data = bytearray(original)
        for _ in range(rng.randint(1, 6)):
            where = rng.randint(0, len(data))
            action = rng.choice(("flip", "insert", "cut", "truncate"))
            if action == "flip" and where < len(data):
                data[where] = rng.randint(0, 255)
            elif action == "insert":
                data[where:where] = rng.randbytes(rng.randint(1, 8))
            elif action == "cut":
                del data[where : where + rng.randint(1, 16)]
            else:
                del data[max(where, 4) :]
        answer = out.count(client.request("POST", client.path("Deployment"), bytes(data), PROTOBUF))
        if answer.status == 201:  # a mutation that still decodes: a fair write, taken back
            client.delete("Deployment", answer.json()["metadata"]["name"])  # type: ignore[index]
    return out


def services_and_replicas(client: Client) -> Outcome:
    out = Outcome("a Service of 2,768 node ports, then another; replicas: null")
    greedy = valid("Service", "greedy")
    greedy["spec"]["type"] = "NodePort"
    greedy["spec"]["ports"] = [{"name": f"p{i}", "port": 1000 + i, "targetPort": 80} for i in range(2768)]
    out.count(client.create(greedy))
    later = valid("Service", "later")
    later["spec"]["type"] = "NodePort"
    answer = out.count(client.create(later))
    out.notes.append(f"the next NodePort Service: {answer.status}")
    client.delete("Service", "later")
    rc = valid("ReplicationController", "nulled")
    rc["spec"]["replicas"] = None
    answer = out.count(client.create(rc))
    replicas = answer.json()["spec"].get("replicas") if answer.status == 201 else None  # type: ignore[union-attr]
    out.notes.append(f"replicas: null stored as {replicas}")
    client.delete("ReplicationController", "nulled")
    return out


def page_endpoints(client: Client) -> Outcome:
    """The console's endpoints and the flow settings, as a browser sends them (CSRF cookie)."""
    out = Outcome(
        "arrays to the console's endpoints; flow settings of the wrong type (not Status: JSON errors)"
    )
    browser = Browser(client.host, client.port, client.cluster)
    browser.open_page()
    for text in ("[]", "[1, 2]", "7", "null", '"ls"', "{"):
        out.codes[browser.post("ui/console", text).status] += 1
        out.codes[browser.post("ui/files", text).status] += 1
    for body in (
        {"on": "yes"},
        {"on": 1},
        {"on": "on"},
        {"pace_ms": 1e300},
        {"pace_ms": True},
        {"trace": {}},
    ):
        for path in ("flow/step_mode", "flow/pace", "flow/next"):
            answer = client.request("POST", f"/clusters/{client.cluster}/{path}", body)
            out.codes[answer.status] += 1
    step_mode = client.request("GET", f"/clusters/{client.cluster}/snapshot").json().get("step_mode")  # type: ignore[union-attr]
    out.notes.append(f"step mode after the wrong values: {step_mode}")
    return out


FRAMES: list[tuple[bytes, int]] = [
    (b"\x00\xff binary", 0x2),
    (b"not json {", 0x1),
    (b'{"action": ' + HUGE.encode() + b"}", 0x1),
    (b"[1, 2]", 0x1),
    (b'{"action": "step_mode", "on": "yes"}', 0x1),
    (b'{"action": "pace", "pace_ms": 1e400}', 0x1),
    (b'{"action": "next", "trace": {"a": 1}}', 0x1),
    (b'{"action": "dance"}', 0x1),
]


def websocket_frames(client: Client) -> Outcome:
    """Frames a page would never send: each answered with an error message, the socket open."""
    out = Outcome(f"{len(FRAMES)} bad websocket frames on one socket (codes: 1 answered, 0 not)")

    async def error_reply(sock) -> bool:
        """Whether an error message comes back (other messages, e.g. changes, are skipped)."""
        try:
            while True:
                if (await sock.next_message(10)).get("type") == "error":
                    return True
        except TimeoutError:
            return False

    async def run() -> None:
        url = f"http://{client.host}:{client.port}"
        sock = await wsclient.connect(url, f"/ws/clusters/{client.cluster}/?view=page", token=client.token)
        try:
            for payload, opcode in FRAMES:
                sock.send_frame(payload, opcode)
                out.codes[1 if await error_reply(sock) else 0] += 1
            sock.send_json({"action": "dance"})
            still = "stayed open" if await error_reply(sock) else "did not answer"
            out.notes.append(f"the socket {still} after the bad frames")
        finally:
            sock.close()

    asyncio.run(run())
    return out

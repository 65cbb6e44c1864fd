"""The broadcast hub: one reader of the log per cluster per process, fanning out to local sockets.

On each nudge (or every POLL_SECONDS) the hub reads the new log entries and flow steps ONCE,
serializes each message ONCE, and hands it to every connected client (cluster/broadcast/sinks.py writes it
without per-client work). A client that falls behind is not waited for: once its backlog passes a
bound, it is sent nothing more until it has drained, then told to `resync` (reload the snapshot),
and the others stay on time. Object messages carry `prev_revision`, the revision of the previous
object message, so a browser can tell a gap from kinds it was never sent (Lease renewals).

Order and completeness across processes: revisions and flow-step ids are both handed out under the
cluster row lock (cluster/apiserver/store.py, cluster/flow/recorder.py), so they commit in order,
and reading "everything above the last id seen" after each nudge misses nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from cluster import execsessions
from cluster.apiserver import rows
from cluster.apiserver import service as api
from cluster.apiserver.errors import Gone
from cluster.broadcast import nudge, pageview, podview
from cluster.broadcast.sinks import RESYNC, Batch, Client, Message
from cluster.client import leader
from cluster.client.informer import db, reset_connection
from cluster.controlplane import activity
from cluster.flow import prediction, steprows
from cluster.flow.recorder import message_of
from cluster.models import Cluster, FlowStep, FlowTrace

logger = logging.getLogger(__name__)
POLL_SECONDS = 2.0
# After a read, the next one waits at least this long: the nudges of a burst (a write's steps,
# the next component's write) gather into one read and one frame per socket, while the first
# change of a burst still goes out at once.
MIN_INTERVAL_SECONDS = 0.004
# A read waits for a busy control plane at most this long (see _let_the_control_plane_finish).
HOLD_MAX_SECONDS = 0.025
RETRY_SECONDS = 1.0
# While a client is lagging, check this often whether it drained (to send it the resync).
LAGGING_POLL_SECONDS = 0.2


class Hub:
    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.clients: set[Client] = set()
        self.task: asyncio.Task | None = None
        self.starting = asyncio.Lock()
        self.cluster: Cluster | None = None
        self.revision = 0
        self.step_id = 0
        self.prev_revision = 0
        self.settings: tuple[int, bool] | None = None
        self.class_may_write = False
        self.stopped_kubelets: dict = {}  # the teacher's node failures, as last sent
        self.leader: tuple[str, int] | None = None  # (holder, transitions) last sent
        self.news = -1  # broadcast.other_news() at the last read of steps and settings
        self.stale = True  # read everything on the next pump
        self.read_all_at = 0.0  # monotonic time of the last read of everything
        self.exec_seq = 0  # the last exec session change sent
        self.gates: dict[str, int] = {}  # trace -> the step it waits at for "next", as last sent
        self.prediction: tuple[int, int] | None = None  # the prediction round's (id, version) last sent

    async def join(self, client: Client) -> None:
        # Sockets connect in bursts: the first one starts the reader, the others wait for it.
        async with self.starting:
            if self.task is None or self.task.done():
                await db(self._start_position)()
                nudge.bind_loop()
                nudge.listen(self.cluster_name)
                self.task = asyncio.create_task(self._run(), name=f"hub/{self.cluster_name}")
        self.clients.add(client)
        activity.watch_started(self.cluster_name)  # a parked control plane starts again

    def leave(self, client: Client) -> None:
        if client in self.clients:
            activity.watch_ended(self.cluster_name)
        self.clients.discard(client)
        if not self.clients and self.task is not None:
            self.task.cancel()
            self.task = None
            nudge.unlisten(self.cluster_name)
            _hubs.pop(self.cluster_name, None)

    def _start_position(self) -> None:
        self.cluster = Cluster.objects.get(name=self.cluster_name)
        self.revision = self.prev_revision = self.cluster.revision
        latest = (
            FlowStep.objects.filter(trace__cluster=self.cluster).order_by("-pk").values_list("pk", flat=True)
        )
        self.step_id = latest.first() or 0
        self.settings = (self.cluster.pace_ms, self.cluster.step_mode)
        self.class_may_write = self.cluster.class_may_write
        self.stopped_kubelets = self.cluster.stopped_kubelets or {}
        self.exec_seq = execsessions.latest_seq(self.cluster)
        self.gates = _gates(self.cluster)
        self.prediction = prediction.key_of(prediction.settle(self.cluster))
        current = leader.current(self.cluster)
        self.leader = (current["holder"], current["transitions"]) if current else None

    async def _run(self) -> None:
        waiter = nudge.NUDGES.subscribe(self.cluster_name)
        try:
            while True:
                started = time.monotonic()
                try:
                    await self.pump()
                except Exception:  # a broken connection: replace it, read everything again
                    logger.exception("the hub of %s failed a read; retrying", self.cluster_name)
                    self.stale = True
                    await db(reset_connection)()
                    await asyncio.sleep(RETRY_SECONDS)
                lagging = any(client.lagging for client in self.clients)
                if not await waiter.wait(LAGGING_POLL_SECONDS if lagging else POLL_SECONDS):
                    self.stale = True  # no nudge for a while: read everything, a nudge may be lost
                    continue
                rest = MIN_INTERVAL_SECONDS - (time.monotonic() - started)
                if rest > 0:
                    await asyncio.sleep(rest)
                await self._let_the_control_plane_finish()
        finally:
            waiter.close()

    async def _let_the_control_plane_finish(self) -> None:
        """While this process's control plane is in the middle of its work (pace 0: the steps of a
        trace follow each other within milliseconds), wait for it, up to HOLD_MAX_SECONDS: writing
        to hundreds of sockets runs on the same event loop and would delay the very steps being
        broadcast. One frame then carries them all. With a pace, the components wait between
        steps and each step goes out at once."""
        await asyncio.sleep(0)  # the woken components start first: their work is what follows
        deadline = time.monotonic() + HOLD_MAX_SECONDS
        while nudge.busy(self.cluster_name) and (now := time.monotonic()) < deadline:
            await nudge.next_change(self.cluster_name, deadline - now)

    async def pump(self) -> None:
        # In the database thread, with the control plane: a read on a thread of its own was slower
        # for both (they fought over the GIL: a pod's last step came ~4 ms later at p50).
        messages = await db(self._read)()
        clients = list(self.clients)
        if messages:
            batch = Batch(messages)
            for client in clients:
                client.offer_batch(batch)
        for client in clients:
            client.heal()

    def _read(self) -> list[Message]:
        """New log entries, steps and settings; a query is skipped when no nudge announced news
        for it since the last read (the poll, every POLL_SECONDS, reads everything)."""
        news = nudge.other_news(self.cluster_name)  # before reading: later news, later read
        now = time.monotonic()
        poll = self.stale or now - self.read_all_at >= POLL_SECONDS
        if poll:
            self.stale, self.read_all_at = False, now
        out: list[Message] = []
        if poll or nudge.latest_revision(self.cluster_name) > self.revision:
            out += self._read_log()
        if poll or news != self.news:
            self.news = news
            out += self._read_steps_and_settings()
        return out

    def _read_log(self) -> list[Message]:
        out: list[Message] = []
        try:
            # The objects' stored JSON, not decoded: it goes into the frame as it is.
            events = api.events_since(self.cluster, self.revision, decode=False)
        except Gone:
            self.revision = Cluster.objects.get(pk=self.cluster.pk).revision
            return [Message(RESYNC, self.revision)]
        page_view = any(client.page_view for client in self.clients)
        for event in events:
            self.revision = event.revision
            if event.kind == "Lease" and not self._leader_changed(event):
                continue  # heartbeats and renewals: noise for the browser
            head = {
                "type": f"object.{event.type.lower()}",
                "cluster": self.cluster_name,
                "revision": event.revision,
                "prev_revision": self.prev_revision,
                "kind": event.kind,
            }
            summary = pageview.SUMMARIES.get(event.kind) if page_view else None
            decoded = rows.shared_object(event.object) if event.kind == "Pod" or summary else None
            if event.kind == "Pod":
                # What the page would otherwise re-derive: kubectl's columns, the summed requests.
                head["pod_status"], head["pod_requests"], head["pod_columns"] = podview.facts(decoded)
            self.prev_revision = event.revision
            text = json.dumps(head, separators=(",", ":"))
            message = Message(f'{text[:-1]},"object":{event.object}}}', revision=event.revision)
            if summary is not None:
                # An `events=page` socket's copy: what the page draws, a third of a pod's bytes.
                head["object"] = summary(decoded)
                message.page = Message(json.dumps(head, separators=(",", ":")), revision=event.revision)
            out.append(message)
        return out

    def _read_steps_and_settings(self) -> list[Message]:
        out: list[Message] = []
        langs = sorted({client.lang for client in self.clients if client.lang})
        for step in steprows.since(self.cluster.pk, self.step_id):
            self.step_id = step["id"]
            payload = message_of(step, self.cluster_name)
            text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            message = Message(text, step_id=step["id"])
            if langs and payload["type"] == "flow.step":
                message.by_lang = {lang: Message(_in(payload, lang), step_id=step["id"]) for lang in langs}
            out.append(message)
        for seq, session in execsessions.changed_since(self.cluster, self.exec_seq):
            self.exec_seq = seq
            out.append(Message(json.dumps({"type": "exec.session", "session": session})))
        pace_ms, step_mode, class_may_write, stopped_kubelets = (
            Cluster.objects.filter(pk=self.cluster.pk)
            .values_list("pace_ms", "step_mode", "class_may_write", "stopped_kubelets")
            .get()
        )
        if (pace_ms, step_mode) != self.settings:
            self.settings = (pace_ms, step_mode)
            payload = {"type": "flow.settings", "pace_ms": pace_ms, "step_mode": step_mode}
            out.append(Message(json.dumps(payload)))
        if step_mode or self.gates:  # only step mode's "next" waits at the gate
            out += self._read_gates()
        if class_may_write != self.class_may_write:
            # The teacher's "Class may write": every page's banner, controls and rights follow it.
            self.class_may_write = class_may_write
            out.append(Message(json.dumps({"type": "access", "class_may_write": class_may_write})))
        if (stopped_kubelets or {}) != self.stopped_kubelets:
            # The teacher stopped or started a kubelet: every page's node cards say so.
            self.stopped_kubelets = stopped_kubelets or {}
            out.append(Message(json.dumps({"type": "kubelets", "stopped": self.stopped_kubelets})))
        # The teacher's prediction round: armed, a guess, closed at its step 9 (settled here, the
        # first reader after that step), explained, cancelled.
        row = prediction.settle(self.cluster)
        if prediction.key_of(row) != self.prediction:  # the round's JSON (a few counts) only then
            self.prediction = prediction.key_of(row)
            payload = {"type": "prediction", "round": prediction.round_json(row)}
            out.append(Message(json.dumps(payload, ensure_ascii=False, separators=(",", ":"))))
        return out

    def _read_gates(self) -> list[Message]:
        """`flow.gate` for each trace whose step waiting for "next" changed (0: none waits)."""
        now = _gates(self.cluster)
        out = []
        for trace_id in sorted(now.keys() | self.gates.keys()):
            step = now.get(trace_id, 0)
            if step != self.gates.get(trace_id, 0):
                payload = {"type": "flow.gate", "cluster": self.cluster_name, "trace": trace_id, "step": step}
                out.append(Message(json.dumps(payload)))
        self.gates = now
        return out

    def _leader_changed(self, event) -> bool:
        """The control plane's Lease is shown when its holder changes, not on every renewal."""
        if (event.namespace, event.name) != (leader.NAMESPACE, leader.NAME):
            return False
        spec = (json.loads(event.object) or {}).get("spec") or {}
        now = (spec.get("holderIdentity") or "", spec.get("leaseTransitions") or 0)
        if event.type == "DELETED":
            now = ("", -1)
        changed = now != self.leader
        self.leader = now
        return changed


def _gates(cluster: Cluster) -> dict[str, int]:
    """The cluster's traces that wait at the gate for "next", with the step they wait at."""
    waiting = FlowTrace.objects.filter(cluster_id=cluster.pk, gate_step__gt=0)
    return dict(waiting.values_list("pk", "gate_step"))


def _in(step: dict, lang: str) -> str:
    """A flow.step message with its detail in `lang` only (English where it has none): a page
    shows one language's detail, and details are half of a burst's step bytes."""
    detail = step["detail"]
    kept = {lang: detail[lang]} if detail.get(lang) else {"en": detail.get("en", "")}
    return json.dumps({**step, "detail": kept}, ensure_ascii=False, separators=(",", ":"))


_hubs: dict[str, Hub] = {}


def hub_for(cluster_name: str) -> Hub:
    hub = _hubs.get(cluster_name)
    if hub is None:
        hub = _hubs[cluster_name] = Hub(cluster_name)
    return hub

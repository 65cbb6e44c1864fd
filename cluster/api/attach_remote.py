"""The web process's side of an attach whose container runs in another process: what the attach
consumer types, closes and leaves goes to the leading control-plane process over the channel
layer, in order (`cluster/kubelet/attachrelay.py` has the messages and the other side).

`RemotePoint` offers the consumer what a local `attach.Point` does (feed, close_stdin, detach);
the answers (attach.opened, .output, .end, .refused) come back to the consumer's own channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets

from channels.exceptions import ChannelFull

from cluster.kubelet import attachrelay


class RemotePoint:
    def __init__(self, layer, leader_channel: str, reply: str, cluster: str, container_id: str,
                 stdin: bool) -> None:  # fmt: skip
        self.layer, self.leader_channel, self.reply = layer, leader_channel, reply
        self.cluster, self.container_id, self.stdin = cluster, container_id, stdin
        self.key = secrets.token_hex(8)
        self.tty = False  # known when the leader answers
        self._outbox: asyncio.Queue = asyncio.Queue()
        self._sender = asyncio.create_task(self._send_all())
        self._left = False

    def mine(self, event: dict) -> bool:
        return event.get("id") == self.key

    def open(self) -> None:
        self._post("attach.open", reply=self.reply, cluster=self.cluster, container_id=self.container_id)

    def feed(self, data: bytes) -> bool:
        self._post("attach.stdin", data=data)
        return True  # a flood is refused by the leader (attach.refused, "flooded")

    def close_stdin(self) -> None:
        self._post("attach.close")

    def alive(self) -> None:
        self._post("attach.alive")

    def detach(self, _client=None) -> None:
        if not self._left:
            self._left = True
            self._post("attach.detach", stdin=self.stdin)

    def _post(self, kind: str, **fields) -> None:
        self._outbox.put_nowait({"type": kind, "id": self.key, **fields})

    async def _send_all(self) -> None:
        """One sender: the leader reads the messages in the order they were typed."""
        while True:
            message = await self._outbox.get()
            with contextlib.suppress(ChannelFull):  # the leader is gone; the watcher ends the session
                await self.layer.send(self.leader_channel, message)
            if message["type"] == "attach.detach":
                return

    async def close(self) -> None:
        """After detach: let the last messages go, then stop the sender."""
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._sender), attachrelay.FULL_RETRY_SECONDS)
        self._sender.cancel()

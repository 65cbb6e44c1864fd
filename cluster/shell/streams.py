"""The exec session's standard input, fed by the websocket and read by the shell's thread."""

from __future__ import annotations

import queue
import threading

EOF_MARK = object()
# Input the shell has not read yet, at most: a caller that floods stdin loses its session.
MAX_PENDING_BYTES = 1 << 20


class Closed(Exception):
    """The caller went away (the websocket closed): the shell stops where it stands."""


class Killed(Exception):
    """The container was stopped under the session (pod deleted, container restarted)."""

    def __init__(self, status: int) -> None:
        self.status = status


class InputStream:
    """Bytes arrive in chunks (`feed`) until `close` (stdin's end) or `abort` (the caller left)."""

    def __init__(self) -> None:
        self._chunks: queue.Queue = queue.Queue()
        self._buffer = b""
        self._ended = False
        self._aborted = threading.Event()
        self._pending = 0  # bytes fed and not yet taken by the shell
        self._killed: int | None = None

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self._pending += len(data)
        if self._pending > MAX_PENDING_BYTES:
            self.abort()
            return
        self._chunks.put(data)

    def close(self) -> None:
        self._chunks.put(EOF_MARK)

    def abort(self) -> None:
        self._aborted.set()
        self._chunks.put(EOF_MARK)

    def kill(self, status: int = 137) -> None:
        """The exec'd process dies with the container (SIGKILL: 128 + 9)."""
        self._killed = status
        self._chunks.put(EOF_MARK)

    @property
    def aborted(self) -> bool:
        return self._aborted.is_set()

    def check(self) -> None:
        """Raise Closed or Killed if the process is no longer wanted (without reading input)."""
        if self._aborted.is_set():
            raise Closed()
        if self._killed is not None:
            raise Killed(self._killed)

    def _pull(self) -> bool:
        """Wait for one more chunk; False at the end of input."""
        if self._ended:
            return False
        item = self._chunks.get()
        if self._aborted.is_set():
            raise Closed()
        if self._killed is not None:
            raise Killed(self._killed)
        if item is EOF_MARK:
            self._ended = True
            return False
        self._pending -= len(item)
        self._buffer += item
        return True

    def read_some(self) -> bytes:
        """What has arrived (waiting for at least one byte); b"" at the end of input."""
        if not self._buffer and not self._pull():
            return b""
        data, self._buffer = self._buffer, b""
        return data

    def read_line(self) -> bytes | None:
        """One line with its newline; the unterminated rest at the end; None when nothing is left."""
        while b"\n" not in self._buffer:
            if not self._pull():
                break
        if not self._buffer:
            return None
        line, sep, rest = self._buffer.partition(b"\n")
        self._buffer = rest
        return line + sep

    def read_all(self) -> bytes:
        while self._pull():
            pass
        data, self._buffer = self._buffer, b""
        return data


class NoInput(InputStream):
    """stdin=false: every read is at once the end of input."""

    def __init__(self) -> None:
        super().__init__()
        self.close()

"""A terminal's line discipline (tty=true): the server echoes what is typed and edits the line,
as the kernel's tty does for a shell: backspace, Ctrl+C, Ctrl+D, Ctrl+U; output newlines as CR LF.

Shells with line editing (bash's readline, busybox ash) also recall earlier lines with the arrow
keys; dash has none, so there an arrow key is echoed as the terminal sends it (`^[[A`).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from cluster.shell.streams import InputStream

INTERRUPT = object()  # Ctrl+C: the line is dropped
MAX_HISTORY = 500


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


class LineReader:
    def __init__(self, stdin: InputStream, echo: Callable[[str], None], editing: bool = True) -> None:
        self.stdin = stdin
        self.echo = echo
        self.editing = editing
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.pending = ""  # typed ahead of the current line
        self.after_cr = False
        self.history: list[str] = []

    def _next_char(self) -> str | None:
        while not self.pending:
            data = self.stdin.read_some()
            if not data:
                return None
            self.pending = self.decoder.decode(data)
        char, self.pending = self.pending[0], self.pending[1:]
        return char

    def _escape(self) -> str:
        """The rest of an escape sequence (`[A` for the up arrow)."""
        char = self._next_char()
        if char != "[":
            return char or ""
        sequence = "["
        while (char := self._next_char()) is not None:
            sequence += char
            if char.isalpha() or char == "~":
                break
        return sequence

    def _replace(self, line: str, new: str) -> str:
        self.echo("\b \b" * len(line) + new)
        return new

    def read_line(self):
        """The next line (without its newline), INTERRUPT, or None at Ctrl+D / end of input."""
        line = ""
        recalled = len(self.history)  # the history entry shown; len(history) is the new line
        while True:
            char = self._next_char()
            if char is None:
                return None
            if char == "\n" and self.after_cr:
                self.after_cr = False
                continue
            self.after_cr = char == "\r"
            if char in "\r\n":
                self.echo("\r\n")
                if line.strip():
                    self.history = [*self.history, line][-MAX_HISTORY:]
                return line
            if char == "\x03":
                self.echo("^C\r\n")
                return INTERRUPT
            if char == "\x04":
                if not line:
                    return None
                continue
            if char in "\x7f\x08":
                if line:
                    line = line[:-1]
                    self.echo("\b \b")
                continue
            if char == "\x15":
                line = self._replace(line, "")
                continue
            if char == "\x1b":
                sequence = self._escape()
                if not self.editing:
                    line += "\x1b" + sequence
                    self.echo("^[" + sequence)
                elif sequence == "[A" and recalled > 0:
                    recalled -= 1
                    line = self._replace(line, self.history[recalled])
                elif sequence == "[B" and recalled < len(self.history):
                    recalled += 1
                    line = self._replace(line, self.history[recalled] if recalled < len(self.history) else "")
                continue
            if char == "\t" or ord(char) < 32:
                continue
            line += char
            self.echo(char)

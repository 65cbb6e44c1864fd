"""A terminal's line discipline (tty=true): the server echoes what is typed and edits the line,
as the kernel's tty does for a shell: backspace, Ctrl+C, Ctrl+D, Ctrl+U; output newlines as CR LF."""

from __future__ import annotations

import codecs
from collections.abc import Callable

from cluster.shell.streams import InputStream

INTERRUPT = object()  # Ctrl+C: the line is dropped


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


class LineReader:
    def __init__(self, stdin: InputStream, echo: Callable[[str], None]) -> None:
        self.stdin = stdin
        self.echo = echo
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.pending = ""  # typed ahead of the current line
        self.after_cr = False

    def _next_char(self) -> str | None:
        while not self.pending:
            data = self.stdin.read_some()
            if not data:
                return None
            self.pending = self.decoder.decode(data)
        char, self.pending = self.pending[0], self.pending[1:]
        return char

    def _skip_escape(self) -> None:
        """Arrow keys and the like (ESC [ ... letter): no history or cursor movement here."""
        char = self._next_char()
        if char != "[":
            return
        while (char := self._next_char()) is not None and not char.isalpha() and char != "~":
            pass

    def read_line(self):
        """The next line (without its newline), INTERRUPT, or None at Ctrl+D / end of input."""
        line = ""
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
                self.echo("\b \b" * len(line))
                line = ""
                continue
            if char == "\x1b":
                self._skip_escape()
                continue
            if char == "\t" or ord(char) < 32:
                continue
            line += char
            self.echo(char)

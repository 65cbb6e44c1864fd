"""A command's standard input as the shell hands it on: read whole (`cat`, a pipe's reader) or a
line at a time (`read`), from a pipe's buffer, a redirected file, or the process's own stream
(an exec's stdin, an attached client's typing), so that `while read line; do …; done` takes one
line per turn and leaves the rest for the next."""

from __future__ import annotations

from cluster.shell.streams import InputStream


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")  # bytes that are not UTF-8 come back exact


class TextInput:
    def __init__(self, text: str = "", stream: InputStream | None = None) -> None:
        self._text, self._at, self._stream = text, 0, stream

    def __call__(self) -> str:
        """The rest of the input, to its end."""
        rest, self._at = self._text[self._at :], len(self._text)
        if self._stream is not None:
            rest += _text(self._stream.read_all())
        return rest

    def read_line(self) -> str | None:
        """The next line with its newline (the unterminated rest at the end); None at the end."""
        if self._at < len(self._text):
            end = self._text.find("\n", self._at)
            end = len(self._text) if end < 0 else end + 1
            line, self._at = self._text[self._at : end], end
            return line
        if self._stream is not None:
            line = self._stream.read_line()
            return None if line is None else _text(line)
        return None

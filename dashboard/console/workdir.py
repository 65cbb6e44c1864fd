"""The console's working directory: the course's example files plus every file this browser
uploaded or saved, kept in its session (one directory per browser, nothing shared)."""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
SESSION_KEY = "console_files"
MAX_FILES = 50
MAX_FILE_BYTES = 256 * 1024
# A plain file name: the working directory has no subdirectories.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class WorkdirError(ValueError):
    """A file name or size the working directory refuses; the message is the console's."""


def examples() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES_DIR.glob("*.yaml"))}


class Workdir:
    """Files by name: the examples, overridden and extended by the session's own."""

    def __init__(self, session=None) -> None:
        self.session = session
        self.own: dict[str, str] = dict((session or {}).get(SESSION_KEY) or {})

    def names(self) -> list[str]:
        return sorted({*examples(), *self.own})

    def read(self, name: str) -> str | None:
        name = name.removeprefix("./")
        if name in self.own:
            return self.own[name]
        return examples().get(name)

    def save(self, name: str, text: str) -> str:
        name = Path(name.replace("\\", "/")).name  # an uploaded file's own name, without its folder
        if not NAME.match(name):
            raise WorkdirError(f'error: invalid file name "{name}"')
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise WorkdirError(f'error: "{name}" is larger than {MAX_FILE_BYTES // 1024} KiB')
        if name not in self.own and len(self.own) >= MAX_FILES:
            raise WorkdirError(f"error: the working directory holds {MAX_FILES} files at most")
        self.own[name] = text
        if self.session is not None:
            self.session[SESSION_KEY] = self.own
        return name

"""The console's working directory: the course's example files plus every file this browser
uploaded or saved (dashboard/files.py keeps them, one directory per browser, nothing shared)."""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
MAX_FILE_BYTES = 256 * 1024
# A plain file name: the working directory has no subdirectories.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class WorkdirError(ValueError):
    """A file name or size the working directory refuses; the message is the console's."""


def examples() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES_DIR.glob("*.yaml"))}


def file_name(name: str) -> str:
    """An uploaded file's own name, without its folder; WorkdirError when it is no plain name."""
    name = Path(name.replace("\\", "/")).name
    if not NAME.match(name):
        raise WorkdirError(f'error: invalid file name "{name}"')
    return name


def check_size(name: str, text: str) -> int:
    """The text's UTF-8 bytes; WorkdirError past MAX_FILE_BYTES."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES:
        raise WorkdirError(f'error: "{name}" is larger than {MAX_FILE_BYTES // 1024} KiB')
    return size


class Workdir:
    """Files by name: the examples, overridden and extended by the browser's own (read when first
    asked for, from the stored key of its session; none for a caller without one)."""

    def __init__(self, browser: str | None = None) -> None:
        self.browser = browser
        self._own: dict[str, str] | None = None

    @property
    def own(self) -> dict[str, str]:
        if self._own is None:
            from dashboard.models import ConsoleFile  # models load after the apps

            files = ConsoleFile.objects.filter(session_id=self.browser) if self.browser else []
            self._own = {f.name: f.text for f in files}
        return self._own

    def names(self) -> list[str]:
        return sorted({*examples(), *self.own})

    def read(self, name: str) -> str | None:
        name = name.removeprefix("./")
        if name in self.own:
            return self.own[name]
        return examples().get(name)

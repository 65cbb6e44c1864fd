"""KubeSim's own state directory: the secret key, the CA and certificates, the presenter token.

`settings.KUBESIM_STATE_DIR` (default `.kubesim/` in the checkout) holds what one installation generates
for itself at first run, whatever the database is. The directory is 0700 and every file in it
0600 from its creation; a secret is created with O_EXCL so that two processes starting together
agree on one value. `make_private` checks all of it (and the SQLite database) at start.
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
from pathlib import Path

from django.conf import settings

SECRET_KEY_FILE = "secret_key"
PRESENTER_TOKEN_FILE = "presenter-token"


PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def state_dir(configured: Path | None = None) -> Path:
    """The state directory, made if missing; `configured` only while the settings are being read."""
    path = Path(configured or settings.KUBESIM_STATE_DIR).expanduser().resolve()
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    return path


def write_private(path: Path, data: bytes) -> bool:
    """Create `path` with mode 0600 holding `data`; False (and nothing written) if it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return True


def replace_private(path: Path, data: bytes) -> None:
    """Write `path` whole (a temporary file renamed over it), mode 0600 from its creation: a reader
    never sees it half-written, and nobody else ever may read it."""
    path.parent.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp: 0600
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class NotPrivate(Exception):
    """A state file others may read, which this process cannot make private (not its owner)."""


def make_private(extra_files: list[Path] = ()) -> list[str]:
    """Check that the state directory (and everything in it) and `extra_files` (the database and
    its -wal/-shm) are private: directories 0700, files 0600. What is wider is narrowed; returns
    one line per change. Raises NotPrivate for a path this process may not change."""
    root = state_dir()
    found: list[tuple[Path, int]] = [(root, PRIVATE_DIR)]
    for folder, dirs, files in os.walk(root):
        found += [(Path(folder) / name, PRIVATE_DIR) for name in dirs]
        found += [(Path(folder) / name, PRIVATE_FILE) for name in files]
    found += [(Path(path), PRIVATE_FILE) for path in extra_files if Path(path).exists()]
    changed = []
    for path, wanted in found:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_symlink() or not mode & 0o077:
            continue
        try:
            path.chmod(wanted)
        except PermissionError:
            raise NotPrivate(
                f"{path} is mode {mode:04o}, readable by others, and not ours to change"
            ) from None
        changed.append(f"{path}: mode {mode:04o} → {wanted:04o} (others could read it)")
    return changed


def database_files() -> list[Path]:
    """The embedded database's files (the database, its -wal and -shm); none for PostgreSQL."""
    database = settings.DATABASES["default"]
    if "sqlite" not in database["ENGINE"]:
        return []
    name = Path(database["NAME"])
    return [name, name.with_name(f"{name.name}-wal"), name.with_name(f"{name.name}-shm")]


def require_private(stderr) -> None:
    """`serve` and `controlplane` start here: the state directory and the database are private,
    narrowed (and said so on `stderr`) where they were not, e.g. a database an older KubeSim made;
    CommandError when one is not ours to narrow."""
    from django.core.management.base import CommandError

    try:
        narrowed = make_private(database_files())
    except NotPrivate as err:
        raise CommandError(str(err)) from None
    for line in narrowed:
        stderr.write(f"Made private: {line}")


def generated_secret(name: str, nbytes: int = 32, directory: Path | None = None) -> str:
    """The secret kept in state_dir()/name, generated (url-safe text) the first time it is asked for."""
    path = state_dir(directory) / name
    if not path.exists():
        write_private(path, secrets.token_urlsafe(nbytes).encode())
    return path.read_text().strip()


def secret_key(directory: Path) -> str:
    """Django's SECRET_KEY, for the settings module (which passes the directory it configures)."""
    return generated_secret(SECRET_KEY_FILE, 50, directory)


def presenter_token() -> str:
    return generated_secret(PRESENTER_TOKEN_FILE)


def rotate(name: str) -> str:
    """Replace a generated secret with a new one (the old one stops working at once)."""
    path = state_dir() / name
    path.unlink(missing_ok=True)
    return generated_secret(name)

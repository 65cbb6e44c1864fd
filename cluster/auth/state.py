"""KubeSim's own state directory: the secret key, the CA and certificates, the presenter token.

`KUBESIM_STATE_DIR` (default `.kubesim/` in the checkout) holds what one installation generates
for itself at first run, whatever the database is. Every secret is a file of mode 0600, created
with O_EXCL so that two processes starting together agree on one value.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY_FILE = "secret_key"
PRESENTER_TOKEN_FILE = "presenter-token"


def state_dir() -> Path:
    path = Path(os.environ.get("KUBESIM_STATE_DIR") or BASE_DIR / ".kubesim").expanduser().resolve()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
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


def generated_secret(name: str, nbytes: int = 32) -> str:
    """The secret kept in state_dir()/name, generated (url-safe text) the first time it is asked for."""
    path = state_dir() / name
    if not path.exists():
        write_private(path, secrets.token_urlsafe(nbytes).encode())
    return path.read_text().strip()


def secret_key() -> str:
    return generated_secret(SECRET_KEY_FILE, 50)


def presenter_token() -> str:
    return generated_secret(PRESENTER_TOKEN_FILE)


def rotate(name: str) -> str:
    """Replace a generated secret with a new one (the old one stops working at once)."""
    path = state_dir() / name
    path.unlink(missing_ok=True)
    return generated_secret(name)

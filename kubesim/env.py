"""Small helpers that read settings from the environment (healthchecks' style)."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured


def envbool(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "yes", "on")


def envint(name: str, default: str) -> int:
    return int(os.environ.get(name, default))


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def envnetworks(name: str, default: str) -> list[str]:
    """A comma-separated list of IP addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `::1`); a
    wrong entry stops the start with its name, not the first request."""
    entries = envlist(name, default)
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {entry!r} is not an IP address or network") from None
    return entries


def database_from_url(url: str) -> dict:
    """Turn postgres://user:pass@host:port/name into a Django DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme not in ("postgres", "postgresql"):
        raise ValueError(f"DATABASE_URL: unsupported scheme {parsed.scheme!r} (use postgres://)")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")) or "kubesim",
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
        # Requests run on kept threads (kubesim/handler.py): their connections are kept too.
        "CONN_MAX_AGE": 600,
        "CONN_HEALTH_CHECKS": True,
        "ATOMIC_REQUESTS": False,
    }

"""Ages as kubectl prints them: apimachinery's duration.HumanDuration, and RFC 3339 parsing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def parse_time(value: str | None) -> datetime | None:
    """An RFC 3339 timestamp ("2025-01-02T03:04:05Z", with optional fraction), or None."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def human_duration(d: timedelta) -> str:
    """duration.HumanDuration: "5s", "2m30s", "3h12m", "4d5h", "2y30d"."""
    seconds = int(d.total_seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def since(timestamp: str | None, now: datetime) -> str:
    """translateTimestampSince: the age of a timestamp, "<unknown>" when it is missing."""
    parsed = parse_time(timestamp)
    if parsed is None:
        return "<unknown>"
    return human_duration(now - parsed)

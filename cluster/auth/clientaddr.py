"""The client's address, for everything that asks "who is this?" by address (rate limits, joins,
the presenter link, the admin login).

It is the connection's peer, unless that peer is a trusted proxy (`KUBESIM_TRUSTED_PROXIES`:
addresses or networks, e.g. the nginx of deploy/). Then the client is read from X-Forwarded-For,
from the right: every proxy appends the address it saw, so the rightmost address that is not
itself a trusted proxy is the client. What stands left of it was written by the client and
proves nothing; a header from a peer that is not trusted is ignored altogether.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """`10.0.0.5`, `10.0.0.0/8`, `::1` as networks (an address is a network of one); the settings
    checked them at start (kubesim.env.envnetworks)."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def _address(text: str) -> Address | None:
    """An address as a peer or X-Forwarded-For writes it (`1.2.3.4`, `1.2.3.4:5678`, `[::1]:80`,
    `::ffff:1.2.3.4`); None when it is none."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def in_networks(address: str, entries: list[str] | tuple[str, ...]) -> bool:
    """Whether `address` lies in one of `entries` (addresses or networks, as the settings list them)."""
    parsed = _address(address)
    return parsed is not None and any(parsed in network for network in _networks(tuple(entries)))


def forwarded_client(peer: str, forwarded_for: str) -> str:
    """The client's address, given the connection's peer and the X-Forwarded-For header(s)."""
    trusted = _networks(tuple(settings.KUBESIM_TRUSTED_PROXIES))
    hop = _address(peer)
    if hop is None or not trusted:
        return str(hop) if hop is not None else peer
    hops = [entry for entry in forwarded_for.split(",") if entry.strip()]
    while any(hop in network for network in trusted) and hops:
        previous = _address(hops.pop())
        if previous is None:
            break  # a malformed entry: the proxy that passed it on is all we know
        hop = previous
    return str(hop)


def client_address(who) -> str:
    """The client's address of an HttpRequest or an ASGI scope (see the module's rules)."""
    if isinstance(who, dict):
        peer = (who.get("client") or ("",))[0] or ""
        forwarded = ",".join(
            value.decode("latin-1")
            for name, value in who.get("headers", [])
            if name.lower() == b"x-forwarded-for"
        )
        return forwarded_client(peer, forwarded)
    cached = getattr(who, "_kubesim_client_address", None)
    if cached is None:
        meta = who.META
        cached = forwarded_client(meta.get("REMOTE_ADDR", "") or "", meta.get("HTTP_X_FORWARDED_FOR", ""))
        who._kubesim_client_address = cached
    return cached

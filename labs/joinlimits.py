"""How fast a class may join, per identity where one exists.

A join builds a sandbox with its own control plane, and class codes are short, so joins are
limited; but a class of sixty behind one proxy or one school NAT shares an address, so the
address alone cannot be the identity:
- the browser: a random id in a long-lived cookie (`kubesim_browser`, set by the join page), one
  per browser. Joins are limited per class code and browser (a typo'd name, a retry);
- the client's address (cluster.auth.clientaddr: behind a trusted proxy, the forwarded one) limits
  joins too, unless it is listed in KUBESIM_SHARED_ADDRESSES (a NAT the class shares), and is
  the only identity of a client without the browser cookie (a script);
- the class code: at most KUBESIM_CLASS_JOINS_PER_MINUTE joins a minute, sized so that sixty
  students join within one;
- wrong codes are limited per address, or per browser from a shared address.
A refused attempt counts nowhere; `Retry-After` says when the longest of its waits ends.
"""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from cluster.auth.clientaddr import client_address, in_networks
from cluster.auth.ratelimit import RateLimiter

BROWSER_COOKIE = "kubesim_browser"
BROWSER_COOKIE_SECONDS = 365 * 24 * 3600
_BROWSER_ID = re.compile(r"^[0-9a-f]{32}$")
WINDOW = 60.0

JOINS = RateLimiter()


def browser_of(request: HttpRequest) -> str:
    """The browser's id from its cookie ("" when it has none, or a forged one of another shape)."""
    value = request.COOKIES.get(BROWSER_COOKIE, "")
    return value if _BROWSER_ID.match(value) else ""


def remember_browser(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Give a browser without one its id (the join page does, before the form is sent)."""
    if not browser_of(request):
        response.set_cookie(
            BROWSER_COOKIE,
            secrets.token_hex(16),
            max_age=BROWSER_COOKIE_SECONDS,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )
    return response


def join_wait(request: HttpRequest, code: str, known: bool) -> int:
    """0 and the attempt counted when a join with class code `code` may go on (`known`: the code
    names a session); else the seconds to wait (see the module's rules)."""
    address = client_address(request)
    browser = browser_of(request)
    by_address = not browser or not in_networks(address, settings.KUBESIM_SHARED_ADDRESSES)
    if not known:
        who = ("addr", address) if by_address else ("browser", browser)
        return JOINS.retry_after_all(
            [(("wrong-code", *who), settings.KUBESIM_WRONG_CODES_PER_MINUTE)], WINDOW
        )
    attempts = settings.KUBESIM_JOIN_ATTEMPTS_PER_MINUTE
    limits = [(("class", code), settings.KUBESIM_CLASS_JOINS_PER_MINUTE)]
    if browser:
        limits.append((("join", code, "browser", browser), attempts))
    if by_address:
        limits.append((("join", "addr", address), attempts))
    return JOINS.retry_after_all(limits, WINDOW)


def resume_wait(request: HttpRequest) -> int:
    """0 and the attempt counted when a resume code may be tried now; else the seconds to wait.
    Resume codes are limited as wrong class codes are: per address, or per browser from a
    shared address."""
    address = client_address(request)
    browser = browser_of(request)
    by_address = not browser or not in_networks(address, settings.KUBESIM_SHARED_ADDRESSES)
    who = ("addr", address) if by_address else ("browser", browser)
    return JOINS.retry_after_all([(("resume", *who), settings.KUBESIM_WRONG_CODES_PER_MINUTE)], WINDOW)

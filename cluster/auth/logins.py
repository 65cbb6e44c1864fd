"""Password logins (the Django admin's form, which every staff page sends to) are throttled.

Failed logins are counted per client address and per user name in a sliding window; past either
limit the form answers 429 with Retry-After and checks no password at all, so a guesser learns
nothing more until the window has moved on. Only a checked failure counts, so the lock always ends
within one window of the last wrong password: the right password is never locked out for good.

A browser that has logged in as a user before carries a signed cookie saying so (OWASP's "device
cookie"): its attempts for that user are counted on their own, so a class that fails against the
teacher's name, or shares the teacher's address behind a NAT, does not lock the teacher out.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core import signing
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from cluster.auth.clientaddr import client_address
from cluster.auth.ratelimit import RateLimiter

FAILURES = RateLimiter()
DEVICE_COOKIE = "kubesim_login_device"
DEVICE_SALT = "kubesim.logins.device"
DEVICE_MAX_AGE = 180 * 24 * 3600


def _limits() -> tuple[int, int, float]:
    return (
        settings.KUBESIM_LOGIN_FAILURES_PER_ADDRESS,
        settings.KUBESIM_LOGIN_FAILURES_PER_USERNAME,
        float(settings.KUBESIM_LOGIN_WINDOW_SECONDS),
    )


def _username(value: object) -> str:
    return str(value or "").strip().lower()[:150]


def _device(request, username: str) -> str | None:
    """The id of this browser's device cookie, if it is one for `username`."""
    try:
        cookie = request.COOKIES.get(DEVICE_COOKIE, "")
        found = signing.loads(cookie, salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE)
    except signing.BadSignature:
        return None
    if isinstance(found, dict) and found.get("user") == username and isinstance(found.get("id"), str):
        return found["id"]
    return None


def _counters(request, username: str) -> list[tuple[tuple, int]]:
    per_address, per_username, _window = _limits()
    device = _device(request, username)
    if device is not None:
        return [(("device", device), per_address)]
    return [(("address", client_address(request)), per_address), (("username", username), per_username)]


def retry_after(request, username: str) -> int:
    """Seconds until this browser may try `username` again; 0: now."""
    window = _limits()[2]
    return max(FAILURES.wait(key, limit, window) for key, limit in _counters(request, username))


def failed(request, username: str) -> None:
    for key, _limit in _counters(request, username):
        FAILURES.hit(key)


def remember_device(request, response, username: str) -> None:
    """After a successful login: this browser is known for `username` from now on."""
    known = _device(request, username) or secrets.token_urlsafe(16)
    value = signing.dumps({"user": username, "id": known}, salt=DEVICE_SALT)
    response.set_cookie(
        DEVICE_COOKIE,
        value,
        max_age=DEVICE_MAX_AGE,
        httponly=True,
        samesite="Strict",
        secure=request.is_secure(),
        path="/admin/",
    )


class ThrottledLoginForm(AdminAuthenticationForm):
    """The admin's login form, which checks no password while the caller is throttled."""

    def clean(self):
        username = _username(self.data.get("username"))
        wait = retry_after(self.request, username)
        if wait:
            self.request.kubesim_login_retry_after = wait
            raise ValidationError(
                _("Too many failed logins. Try again in %(seconds)d seconds.") % {"seconds": wait},
                code="throttled",
            )
        try:
            return super().clean()
        except ValidationError:
            failed(self.request, username)
            raise


def throttled(login_view):
    """The admin's login view, answering 429 with Retry-After while throttled and remembering the
    browser of a successful login."""

    def view(request, *args, **kwargs):
        response = login_view(request, *args, **kwargs)
        wait = getattr(request, "kubesim_login_retry_after", 0)
        if wait:
            if hasattr(response, "render"):
                response.render()
            response.status_code = 429
            response["Retry-After"] = str(wait)
        elif request.method == "POST" and request.user.is_authenticated and response.status_code == 302:
            remember_device(request, response, _username(request.user.get_username()))
        return response

    return view

"""A browser's side of the page's own endpoints for the abuse benchmark: a session cookie and the
CSRF token the page sends (`X-CSRFToken`), as the console and the file upload need them."""

from __future__ import annotations

import http.client
import json
from http.cookies import SimpleCookie

from bench.hostile.client import Answer


class Browser:
    """One browser: its cookies, kept between requests (a new Browser is a new visitor)."""

    def __init__(self, host: str, port: int, cluster: str = "demo", timeout: float = 60) -> None:
        self.host, self.port, self.cluster, self.timeout = host, port, cluster, timeout
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | str | None = None) -> Answer:
        headers = {"Accept": "application/json", "User-Agent": "kubesim-bench-abuse"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/json"
            headers["X-CSRFToken"] = self.cookies.get("csrftoken", "")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(
                method, path, body=body.encode() if isinstance(body, str) else body, headers=headers
            )
            response = connection.getresponse()
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return Answer(response.status, response.read())
        except TimeoutError:
            return Answer(0, b"")  # a hang: no answer in time
        finally:
            connection.close()

    def open_page(self) -> Answer:
        """The cluster's page: the CSRF cookie, as a visitor's first request gets it."""
        return self.request("GET", f"/clusters/{self.cluster}/")

    def save_file(self, name: str, text: str) -> Answer:
        return self.request(
            "POST", f"/clusters/{self.cluster}/ui/files", json.dumps({"name": name, "text": text})
        )

    def post(self, path: str, body: bytes | str) -> Answer:
        return self.request("POST", f"/clusters/{self.cluster}/{path}", body)

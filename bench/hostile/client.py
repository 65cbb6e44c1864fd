"""The one HTTP client the abuse benchmark and the robustness tests write through.

Every request goes through `Client.request`, so credentials are added in this one place: a
bearer token from `Client(token=...)`, else KUBESIM_BENCH_TOKEN, else the teacher's presenter
token from the state directory (a server started from this checkout shares it). The teacher may
write, and is not rate-limited; `allow_pods` raises the cluster's quota for the cases that need
a thousand pods.
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from cluster.auth.access import presenter_token

JSON = "application/json"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY = "application/apply-patch+yaml"
PATCH_TYPES = (MERGE, STRATEGIC, JSON_PATCH, APPLY)


def managed_path(path: str, content_type: str) -> str:
    """An apply's path naming its field manager, as an apply must (else 422 before the body is
    read): the bodies are what is being tried."""
    if content_type != APPLY or "fieldManager=" in path:
        return path
    return path + ("&" if "?" in path else "?") + "fieldManager=hostile"


@dataclass
class Answer:
    status: int
    body: bytes

    def json(self) -> object:
        return json.loads(self.body)

    def is_status(self) -> bool:
        """A Kubernetes Status object (what every error must be)."""
        try:
            data = self.json()
        except ValueError:
            return False
        return isinstance(data, dict) and data.get("kind") == "Status"


class Client:
    def __init__(
        self, url: str, cluster: str = "demo", token: str | None = None, timeout: float = 60
    ) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cluster = cluster
        self.token = token if token is not None else settings.KUBESIM_BENCH_TOKEN or presenter_token()
        self.timeout = timeout

    def headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"User-Agent": "kubesim-bench-abuse", "Accept": JSON}
        if content_type:
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def request(self, method: str, path: str, body: object = None, content_type: str | None = None) -> Answer:
        """One request on a fresh connection; `body` is bytes as given, or JSON-encoded."""
        if body is not None and not isinstance(body, bytes | str):
            body = json.dumps(body)
            content_type = content_type or JSON
        if isinstance(body, str):
            body = body.encode()
        path = managed_path(path, content_type or "")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body, headers=self.headers(content_type))
            response = connection.getresponse()
            return Answer(response.status, response.read())
        except TimeoutError:
            return Answer(0, b"")  # a hang: no answer within the timeout (counted as status 0)
        finally:
            connection.close()

    # Kubernetes paths of this client's cluster --------------------------------------------------
    def path(self, kind: str, namespace: str | None = "default", name: str = "", sub: str = "") -> str:
        from cluster.apiserver.kinds import KINDS

        info = KINDS[kind]
        base = f"/clusters/{self.cluster}/" + (
            f"apis/{info.group}/{info.version}" if info.group else "api/v1"
        )
        if info.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{info.plural}"
        if name:
            base += f"/{name}"
        if sub:
            base += f"/{sub}"
        return base

    def create(self, obj: dict, namespace: str = "default") -> Answer:
        return self.request("POST", self.path(obj["kind"], namespace), obj)

    def delete(self, kind: str, name: str, namespace: str = "default", propagation: str = "") -> Answer:
        query = f"?propagationPolicy={propagation}" if propagation else ""
        return self.request("DELETE", self.path(kind, namespace, name) + query)

    def scale(self, kind: str, name: str, replicas: int, namespace: str = "default") -> Answer:
        return self.request(
            "PATCH", self.path(kind, namespace, name, "scale"), {"spec": {"replicas": replicas}}, MERGE
        )

    def allow_pods(self, pods: int) -> Answer:
        """The teacher's quota override: room for `pods` pods (and the objects they are)."""
        quota = {"pods": pods, "objects": pods + 500}
        return self.request("POST", f"/clusters/{self.cluster}/policy", {"quota": quota})

    def items(self, kind: str, namespace: str | None = None) -> list[dict]:
        answer = self.request("GET", self.path(kind, namespace))
        return answer.json()["items"] if answer.status == 200 else []  # type: ignore[index]

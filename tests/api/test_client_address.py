"""The client's address behind proxies, and the limits that use it: the presenter link, writes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory

from cluster.auth.access import caller_of, presenter_token
from cluster.auth.clientaddr import client_address, forwarded_client, in_networks
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster
from kubesim.env import envnetworks


@pytest.fixture
def demo(transactional_db):
    cluster = create_demo("demo", pace_ms=0)
    yield cluster
    runtime.forget("demo")


def test_without_trusted_proxies_the_header_is_ignored(settings):
    settings.KUBESIM_TRUSTED_PROXIES = []
    assert forwarded_client("203.0.113.9", "10.1.1.1") == "203.0.113.9"


def test_a_trusted_proxy_forwards_the_client_read_from_the_right(settings):
    settings.KUBESIM_TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8"]
    assert forwarded_client("127.0.0.1", "198.51.100.7") == "198.51.100.7"
    # The client wrote the left part itself: only what the trusted hops appended counts.
    assert forwarded_client("127.0.0.1", "6.6.6.6, 198.51.100.7, 10.2.3.4") == "198.51.100.7"
    # A peer that is not trusted is the client, whatever it claims.
    assert forwarded_client("198.51.100.7", "10.9.9.9") == "198.51.100.7"
    # Every hop trusted: the leftmost is as far as we can see.
    assert forwarded_client("127.0.0.1", "10.0.0.1, 10.0.0.2") == "10.0.0.1"
    # No header from a trusted proxy: the proxy itself.
    assert forwarded_client("127.0.0.1", "") == "127.0.0.1"
    # Garbage stops the walk at the proxy that passed it on.
    assert forwarded_client("127.0.0.1", "not-an-address") == "127.0.0.1"


def test_ports_brackets_and_mapped_addresses_are_read(settings):
    settings.KUBESIM_TRUSTED_PROXIES = ["::1", "127.0.0.1"]
    assert forwarded_client("::ffff:127.0.0.1", "198.51.100.7:5123") == "198.51.100.7"
    assert forwarded_client("::1", "[2001:db8::5]:443") == "2001:db8::5"
    assert in_networks("::ffff:10.1.2.3", ["10.0.0.0/8"])
    assert not in_networks("11.1.2.3", ["10.0.0.0/8"])


def test_requests_and_websocket_scopes_give_the_same_address(settings):
    settings.KUBESIM_TRUSTED_PROXIES = ["127.0.0.1"]
    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR="198.51.100.7", REMOTE_ADDR="127.0.0.1")
    scope = {"client": ["127.0.0.1", 50000], "headers": [(b"x-forwarded-for", b"198.51.100.7")]}
    assert client_address(request) == client_address(scope) == "198.51.100.7"
    request.user = None
    assert caller_of(request).client == "198.51.100.7"
    assert (
        caller_of({**scope, "headers": [*scope["headers"], (b"origin", b"http://x")]}).client
        == "198.51.100.7"
    )


def test_a_wrong_network_in_the_environment_stops_the_start(monkeypatch):
    monkeypatch.setenv("KUBESIM_TRUSTED_PROXIES", "10.0.0.0/8, nginx.local")
    with pytest.raises(ImproperlyConfigured, match=r"'nginx\.local' is not an IP address or network"):
        envnetworks("KUBESIM_TRUSTED_PROXIES", "")


def test_wrong_presenter_tokens_are_limited_per_address_and_the_right_one_always_works(settings, demo):
    settings.KUBESIM_TRUSTED_PROXIES = ["127.0.0.1"]
    settings.KUBESIM_PRESENTER_FAILURES_PER_MINUTE = 3
    hammer = Client(HTTP_X_FORWARDED_FOR="198.51.100.66")
    for _ in range(3):
        assert hammer.get("/presenter/?token=wrong").status_code == 403
    limited = hammer.get("/presenter/?token=wrong")
    assert limited.status_code == 429 and int(limited["Retry-After"]) >= 1
    assert "Too many wrong presenter links" in limited.content.decode()
    # The teacher behind the same proxy, and the hammering address itself with the right token.
    assert Client(HTTP_X_FORWARDED_FOR="198.51.100.5").get("/presenter/?token=wrong").status_code == 403
    right = hammer.get(f"/presenter/?token={presenter_token()}")
    assert right.status_code == 302 and right["Location"] == "/clusters/demo/"


def _pod(client: Client, name: str) -> int:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}}
    body["spec"] = {"containers": [{"name": "c", "image": "nginx:1.25"}]}
    path = "/clusters/demo/api/v1/namespaces/default/pods"
    return client.post(path, body, content_type="application/json").status_code


def test_anonymous_writes_are_limited_per_forwarded_address_behind_a_trusted_proxy(settings, demo):
    settings.KUBESIM_QUOTA = {"writes": 2, "window": 30}
    Cluster.objects.filter(pk=demo.pk).update(class_may_write=True)
    settings.KUBESIM_TRUSTED_PROXIES = ["127.0.0.1"]
    ann, bob = Client(HTTP_X_FORWARDED_FOR="10.0.0.1"), Client(HTTP_X_FORWARDED_FOR="10.0.0.2")
    assert [_pod(ann, f"a{i}") for i in range(3)] == [201, 201, 429]
    assert [_pod(bob, f"b{i}") for i in range(2)] == [201, 201]  # a bucket of his own
    # Not trusted: the header is the client's own words, and everyone shares the peer's bucket.
    settings.KUBESIM_TRUSTED_PROXIES = []
    codes = [_pod(Client(HTTP_X_FORWARDED_FOR=f"10.0.1.{i}"), f"c{i}") for i in range(3)]
    assert codes == [201, 201, 429]

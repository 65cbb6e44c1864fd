"""How `manage.py serve` listens: a deep accept queue, and a deadline for slow request heads.

- The listen backlog is socket.SOMAXCONN (the kernel caps it at net.core.somaxconn), not Twisted's
  50: a classroom opening the page at once is a burst of hundreds of connections.
- A client must send its first complete request (head and body) within REQUEST_DEADLINE_SECONDS
  of connecting, and may pause at most IDLE_SECONDS between bytes while sending one. Both apply
  only while a request is being received: Twisted suspends the idle timeout while a response is
  produced, so watches, `logs -f` and websockets run as long as they like. (Daphne's own
  `http_timeout` limits the whole response, which would cut those.)
"""

from __future__ import annotations

import socket

from daphne.endpoints import build_endpoint_description_strings
from django.conf import settings

IDLE_SECONDS = settings.KUBESIM_REQUEST_IDLE_SECONDS
REQUEST_DEADLINE_SECONDS = settings.KUBESIM_REQUEST_DEADLINE_SECONDS


def endpoints(host: str, port: int) -> list[str]:
    described = build_endpoint_description_strings(host=host, port=port)
    return [f"{endpoint}:backlog={socket.SOMAXCONN}" for endpoint in described]


def guard(factory, deadline: float = REQUEST_DEADLINE_SECONDS, idle: float = IDLE_SECONDS) -> None:
    """Give Daphne's HTTP factory the idle timeout and the first-request deadline."""
    from twisted.internet import reactor

    factory.timeOut = idle
    build = factory.buildProtocol

    def build_protocol(addr):
        protocol = build(addr)
        channel = getattr(protocol, "_channel", protocol)
        received = channel.allContentReceived

        def all_content_received():
            channel.kubesim_served = True
            received()

        channel.kubesim_served = False
        channel.allContentReceived = all_content_received
        reactor.callLater(deadline, _abort_if_still_reading, channel)
        return protocol

    factory.buildProtocol = build_protocol


def _abort_if_still_reading(channel) -> None:
    transport = getattr(channel, "transport", None)
    if transport is not None and not channel.kubesim_served and transport.connected:
        transport.abortConnection()

"""A demo cluster at pace 0, driven deterministically with run_until_idle."""

from __future__ import annotations

import time

import pytest
import yaml
from asgiref.sync import async_to_sync

from cluster.apiserver.actor import Actor
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from tests.conftest import SHARED_EXAMPLES

KUBECTL = Actor("kubectl", "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0")


@pytest.fixture
def demo(transactional_db):
    cluster = create_demo("demo", pace_ms=0)
    yield cluster
    runtime.forget("demo")


def example(name: str) -> dict:
    return yaml.safe_load((SHARED_EXAMPLES / name).read_text())


def drive(name: str = "demo") -> None:
    """Run the cluster's control plane until it has nothing left to do."""
    async_to_sync(runtime.run_until_idle)(name)


def drive_until(done, seconds: float = 15.0, name: str = "demo") -> None:
    """Drive through the scheduler's backoff (1 s, doubling) until `done()` holds."""
    deadline = time.monotonic() + seconds
    drive(name)
    while not done() and time.monotonic() < deadline:
        time.sleep(0.3)
        drive(name)

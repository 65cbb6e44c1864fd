"""A demo cluster at pace 0, driven deterministically with run_until_idle."""

from __future__ import annotations

import pytest
import yaml

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

"""Exec sessions are capped per user, per cluster and per installation (docs/shell.md): 429."""

from __future__ import annotations

import pytest

from cluster import execsessions
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster

pytestmark = pytest.mark.django_db


def _open(cluster: str, holder: str) -> dict:
    return execsessions.opened(cluster, "default", "web", "nginx", ["sleep", "30"], "u", "web", False, holder)


@pytest.fixture
def clusters(db):
    return Cluster.objects.create(name="demo"), Cluster.objects.create(name="other")


def test_a_user_has_four_sessions_at_most(clusters):
    for _ in range(4):
        _open("demo", "user:7")
    with pytest.raises(ApiError) as refused:
        _open("other", "user:7")
    assert (refused.value.code, refused.value.reason) == (429, "TooManyRequests")
    assert refused.value.message == "you have 4 exec sessions open; close one and try again"
    _open("demo", "user:8")  # someone else still may
    _open("demo", "addr:10.0.0.9")


def test_a_closed_session_gives_its_turn_back(clusters):
    sessions = [_open("demo", "user:7") for _ in range(4)]
    execsessions.closed(sessions[0], 0)
    _open("demo", "user:7")


def test_a_cluster_has_its_own_cap(clusters, settings):
    settings.KUBESIM_EXEC_MAX_SESSIONS_PER_CLUSTER = 3
    for number in range(3):
        _open("demo", f"user:{number}")
    with pytest.raises(ApiError) as refused:
        _open("demo", "user:99")
    assert refused.value.message == "too many exec sessions are open in this cluster; try again later"
    _open("other", "user:99")


def test_the_installation_has_its_cap(clusters, settings):
    settings.KUBESIM_EXEC_MAX_SESSIONS = 2
    _open("demo", "user:1")
    _open("other", "user:2")
    with pytest.raises(ApiError) as refused:
        _open("other", "user:3")
    assert refused.value.message == "too many exec sessions are open; try again later"

"""The control plane's informers read each log entry's object decoded once, shared between them."""

from __future__ import annotations

import pytest

from cluster.apiserver import rows
from cluster.apiserver import service as api
from cluster.client.informer import Informer
from cluster.models import Cluster

pytestmark = pytest.mark.django_db


def _pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def test_informers_of_different_components_hold_the_same_decoded_object(actor):
    cluster = Cluster.objects.create(name="shared-decode")
    scheduler = Informer(cluster.name, "scheduler", ("Pod",), "Pods", "")
    kubelet = Informer(cluster.name, "kubelet", ("Node", "Pod"), "Pods and Nodes", "", node="n1")
    scheduler.sync(), kubelet.sync()  # listed: from here on they read the log
    api.create(cluster, _pod("web"), actor)
    [seen_by_scheduler] = scheduler.sync()
    [seen_by_kubelet] = kubelet.sync()
    assert seen_by_scheduler.obj is seen_by_kubelet.obj
    assert seen_by_scheduler.obj == api.get(cluster, "Pod", "default", "web")


def test_the_same_text_decodes_to_one_object_and_other_texts_to_their_own():
    one = rows.shared_object('{"metadata": {"name": "a"}}')
    assert rows.shared_object('{"metadata": {"name": "a"}}') is one
    assert rows.shared_object('{"metadata": {"name": "b"}}') == {"metadata": {"name": "b"}}

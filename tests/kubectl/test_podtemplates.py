"""PodTemplates through the real kubectl: the table is printPodTemplate's, describe the generic one."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from cluster.kubeapi.describe import describe_generic, with_events

TEMPLATE = """apiVersion: v1
kind: PodTemplate
metadata:
  name: described-pt
template:
  metadata:
    labels:
      app: web
      tier: front
  spec:
    containers:
      - name: nginx
        image: nginx:1.27
      - name: sidecar
        image: busybox:1.36
"""


def test_podtemplate_table_and_describe_are_kubectls(kubectl):
    kubectl.ok("apply", "-f", "-", stdin=TEMPLATE)
    try:
        assert kubectl.ok("get", "podtemplates") == (
            "NAME           CONTAINERS      IMAGES                    POD LABELS\n"
            "described-pt   nginx,sidecar   nginx:1.27,busybox:1.36   app=web,tier=front\n"
        )
        obj = json.loads(kubectl.ok("get", "podtemplate", "described-pt", "-o", "json"))
        assert obj["metadata"]["generation"] == 1
        out = kubectl.ok("describe", "podtemplate", "described-pt")
        assert out == with_events(describe_generic(obj), [], datetime.now(UTC))
    finally:
        kubectl.ok("delete", "podtemplate", "described-pt")

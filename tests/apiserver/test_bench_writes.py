"""`manage.py bench_writes`: each write's CPU, measured on real writes that land, and nothing left."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from cluster.models import Cluster

pytestmark = pytest.mark.django_db(transaction=True)


def test_bench_writes_times_creates_bindings_and_status_reports_and_removes_its_clusters():
    out = io.StringIO()
    call_command("bench_writes", pods=4, nodes=2, rounds=2, stdout=out)
    text = out.getvalue()
    figures = re.search(r"create ([\d.]+) ms, bind ([\d.]+) ms, status ([\d.]+) ms", text)
    assert figures and all(float(value) > 0 for value in figures.groups()), text
    assert "pods bound and Running: 8 of 8" in text
    assert re.search(r"machine speed .*: [\d.]+ / [\d.]+ k loops", text)
    assert not Cluster.objects.filter(name__startswith="bench-").exists()

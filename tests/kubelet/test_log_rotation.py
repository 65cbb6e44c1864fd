"""A container's log in chunks: a follower reads only the chunks after the last it read, and a
rotation's new file reaches it whole."""

from __future__ import annotations

import pytest

from cluster.kubelet.containerlogs import LogWriter, read_after, read_lines
from cluster.models import Cluster

pytestmark = pytest.mark.django_db


def texts(lines: list[str]) -> list[str]:
    return [line.split(" ", 1)[1] for line in lines]  # without the timestamps


def test_a_follower_reads_only_new_chunks_and_a_rotations_new_file(settings):
    settings.KUBESIM_CONTAINER_LOG_MAX_BYTES = 200
    cluster = Cluster.objects.create(name="logs")
    writer = LogWriter()
    writer.append("uid-1", "run-1", "one\ntwo\n")
    writer.flush(cluster)
    last, lines = read_after(cluster, "run-1", 0)
    assert texts(lines) == ["one\n", "two\n"]
    writer.append("uid-1", "run-1", "three\n")
    writer.flush(cluster)
    last, lines = read_after(cluster, "run-1", last)
    assert texts(lines) == ["three\n"]  # not the whole log again
    assert read_after(cluster, "run-1", last) == (last, [])
    # Past the cap: the lines so far become the rotated file, and the new file's chunks come after.
    writer.append("uid-1", "run-1", "".join(f"line {i}\n" for i in range(40)))
    writer.flush(cluster)
    last_after, lines = read_after(cluster, "run-1", last)
    assert last_after > last and lines and texts(lines)[-1] == "line 39\n"
    assert read_lines(cluster, "run-1") == lines  # only the new file is kept

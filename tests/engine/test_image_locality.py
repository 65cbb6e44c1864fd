# ruff: noqa: E501 -- upstream test tables are ported one case per line
"""ImageLocality: upstream's image_locality_test.go table (init containers counted, threshold per
container), the image-name normalization, spread over the whole snapshot, and the explanation."""

from __future__ import annotations

import hashlib

import pytest

from scheduler.engine.framework import CycleState
from scheduler.engine.plugins.imagelocality.image_locality import ImageLocality
from scheduler.engine.podinfo import PodInfo, normalize_image
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, make_node, make_pod, run_score

MB = 1024 * 1024


def images(*entries: tuple[list[str], int]) -> list[dict]:
    return [{"names": names, "sizeBytes": size * MB} for names, size in entries]


NODE_40_300_2000 = images(
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300),
    (["gcr.io/2000:latest"], 2000),
)
NODE_250_10 = images((["gcr.io/250:latest"], 250), (["gcr.io/10:latest", "gcr.io/10:v1"], 10))
NODE_600_40_900 = images(
    (["gcr.io/600:latest"], 600), (["gcr.io/40:latest"], 40), (["gcr.io/900:latest"], 900)
)
NODE_300_600_900 = images(
    (["gcr.io/300:latest"], 300), (["gcr.io/600:latest"], 600), (["gcr.io/900:latest"], 900)
)
NODE_4000_30 = images((["gcr.io/4000:latest"], 4000), (["gcr.io/30:latest"], 30))
NODE_20_30_40 = images((["gcr.io/20:latest"], 20), (["gcr.io/30:latest"], 30), (["gcr.io/40:latest"], 40))
NO_IMAGES: list[dict] = []  # fmt: skip


def pod(*names: str, init: tuple[str, ...] = ()) -> dict:
    return make_pod(
        "p",
        containers=[container(f"c{i}", image=n) for i, n in enumerate(names)],
        init_containers=[container(f"i{i}", image=n) for i, n in enumerate(init)],
    )


def nodes(*statuses: list[dict]) -> list[dict]:
    return [make_node(f"node{i + 1}", images=s) for i, s in enumerate(statuses)]


# fmt: off
CASES = [
    # node2: 100·(250/2 − 23)/(1000·2 − 23) = 5
    ("two images spread on two nodes, prefer the larger image one", pod("gcr.io/40", "gcr.io/250"), nodes(NODE_40_300_2000, NODE_250_10), (0, 5)),
    # node1: 100·((40 + 300)/2 − 23)/(2000 − 23) = 7
    ("two images on one node, prefer this node", pod("gcr.io/40", "gcr.io/300"), nodes(NODE_40_300_2000, NODE_250_10), (7, 0)),
    ("if exceed limit, use limit", pod("gcr.io/10", "gcr.io/4000"), nodes(NODE_4000_30, NODE_250_10), (100, 0)),
    # node1: 100·(4000/3 − 23)/(2000 − 23) = 66
    ("if exceed limit, use limit (with node which has no images present)", pod("gcr.io/10", "gcr.io/4000"), nodes(NODE_4000_30, NODE_250_10, NO_IMAGES), (66, 0, 0)),
    # node1: 100·(600·2/3 + 900·2/3 − 23)/(3000 − 23) = 32; node2 adds 300·1/3 → 36
    ("pod with multiple large images, node2 is preferred", pod("gcr.io/300", "gcr.io/600", "gcr.io/900"), nodes(NODE_600_40_900, NODE_300_600_900, NO_IMAGES), (32, 36, 0)),
    ("pod with multiple small images", pod("gcr.io/30", "gcr.io/40"), nodes(NODE_20_30_40, NODE_4000_30), (1, 0)),
    # the init container's image counts, and the threshold is 1000 MiB × 2 containers
    ("include InitContainers: two images spread on two nodes, prefer the larger image one", pod("gcr.io/30", init=("gcr.io/300",)), nodes(NODE_40_300_2000, NODE_20_30_40), (6, 0)),
]
# fmt: on


@pytest.mark.parametrize(("requested", "cluster", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_image_locality(requested, cluster, want):
    assert tuple(run_score(ImageLocality(), requested, cluster).values()) == want


@pytest.mark.parametrize(
    ("image", "normalized"),
    [
        ("root", "root:latest"),
        ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("root:tag", "root:tag"),
        (
            "root@sha256:" + hashlib.sha256(b"root").hexdigest(),
            "root@sha256:" + hashlib.sha256(b"root").hexdigest(),
        ),
    ],
    ids=["add latest", "add latest after registry port", "keep tag", "keep digest"],
)
def test_normalized_image_name(image, normalized):
    assert normalize_image(image) == normalized


def test_spread_counts_all_snapshot_nodes_not_only_the_scored_ones():
    cluster = nodes(images((["nginx:1.15"], 130)), NO_IMAGES, NO_IMAGES)
    snapshot = Snapshot.from_objects(cluster)
    plugin, state, info = ImageLocality(), CycleState(), PodInfo.of(pod("nginx:1.15"))
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes[:1])  # only node1 is feasible
    # 130 MiB on 1 of 3 nodes → 43.3 MiB; 100·(43.3−23)/(1000−23) = 2 (not 100·(130−23)/977 = 10)
    assert column.raw == [2]
    why = plugin.explain_score(column.details[0], 2, 2, 1)
    assert "nginx:1.15 (130 MiB) on 1 of 3 nodes → 43.3 MiB; 100·(43.3−23)/(1000−23) = 2" in why.en
    assert "nginx:1.15（130 MiB）在 1/3 个节点上 → 43.3 MiB" in why.zh


def test_explanation_when_the_node_has_none_of_the_images():
    cluster = nodes(NO_IMAGES, images((["nginx:latest"], 100)))
    snapshot = Snapshot.from_objects(cluster)
    plugin, state, info = ImageLocality(), CycleState(), PodInfo.of(pod("nginx"))
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    assert column.raw == [0, 2]
    assert (
        "holds none of the pod's images (nginx:latest)" in plugin.explain_score(column.details[0], 0, 0, 1).en
    )


def explain_all(requested: dict, cluster: list[dict]) -> list[str]:
    snapshot = Snapshot.from_objects(cluster)
    plugin, state, info = ImageLocality(), CycleState(), PodInfo.of(requested)
    plugin.pre_score(state, info, snapshot.nodes, snapshot)
    column = plugin.score(state, info, snapshot.nodes)
    return [plugin.explain_score(d, r, r, 1).en for d, r in zip(column.details, column.raw, strict=True)]


def test_explanation_names_the_cap_and_the_floor():
    capped = explain_all(pod("gcr.io/4000"), nodes(NODE_4000_30))[0]
    assert "sum 4000 MiB capped at 1000 MiB → 100·(1000−23)/(1000−23) = 100" in capped
    floor = explain_all(pod("gcr.io/10", "gcr.io/4000"), nodes(NODE_4000_30, NODE_250_10))[1]
    assert "sum 5 MiB < 23 MiB floor → 100·(23−23)/(1000·2−23) = 0" in floor


def test_a_container_without_an_image_still_counts_toward_the_threshold():
    requested = make_pod("p", containers=[container("a", image="gcr.io/250"), {"name": "b"}])
    assert run_score(ImageLocality(), requested, nodes(NODE_250_10)) == {"node1": 11}  # (250−23)/(2000−23)


def test_args_are_rejected():
    with pytest.raises(ValueError, match='unknown field "foo"'):
        ImageLocality({"foo": 1})

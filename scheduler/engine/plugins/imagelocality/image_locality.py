"""ImageLocality (legacy ImageLocalityPriority), as in kube-scheduler v1.33.

Favors nodes that already hold the pod's images. Each image the node has adds its size scaled by
how widely it is spread (nodes holding it / all nodes in the snapshot), which damps the "node
heating" of always choosing the one node with the image. Init containers count (≈ v1.30+), and
the upper threshold is 1000 MiB per container.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from scheduler.engine.framework import MAX_NODE_SCORE, CycleState, Plugin, ScoreColumn, Why
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.noderesources.resource_allocation import check_fields
from scheduler.engine.podinfo import PodInfo, normalize_image

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


class ImageInputs(NamedTuple):
    """The pod's images and how widely the snapshot holds them, shown in every node's `detail`."""

    images: tuple[str, ...]  # normalized, init containers first, as the pod lists them
    spread: tuple[float, ...]  # nodes holding the image / all nodes in the snapshot
    num_nodes: tuple[int, ...]
    total_nodes: int
    num_containers: int

    @property
    def max_threshold(self) -> int:
        return MAX_CONTAINER_THRESHOLD * self.num_containers


def priority(total: int, num_containers: int) -> int:
    """calculatePriority: clamp the sum into [23 MiB, 1000 MiB × containers], scale to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clamped = MIN_THRESHOLD if total < MIN_THRESHOLD else min(total, max_threshold)
    return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def mib(size: float) -> str:
    return f"{size / MB:.1f}".removesuffix(".0")


def _hits(wanted: Sequence[int], sizes: Sequence[int | None]) -> tuple[tuple[int, int], ...]:
    """(image index, size on the node) of each wanted image (by index) the node holds."""
    return tuple((i, size) for i, size in zip(wanted, sizes, strict=True) if size is not None)


def _total(inputs: ImageInputs, hits: Sequence[tuple[int, int]]) -> int:
    """int64(float64(size) * spread), per image, as scaledImageScore."""
    return sum(int(float(size) * inputs.spread[i]) for i, size in hits)


_INPUT_FIELDS = len(ImageInputs._fields)


def _detail(*context_and_index: Any) -> tuple:
    """The context: the inputs' fields, the wanted images' indexes, then one column of node sizes
    per wanted image (kept flat for the garbage collector, see ScoreColumn.lazy)."""
    *context, index = context_and_index
    inputs = ImageInputs._make(context[:_INPUT_FIELDS])
    wanted, columns = context[_INPUT_FIELDS], context[_INPUT_FIELDS + 1 :]
    hits = _hits(wanted, [column[index] for column in columns])
    return inputs, _total(inputs, hits), hits


class _ScoreMemo(dict):
    """Raw score by the sizes a node reports for the wanted images, computed on first sight."""

    def __init__(self, inputs: ImageInputs, wanted: Sequence[int], as_tuple) -> None:
        super().__init__()
        self.inputs, self.wanted, self.as_tuple = inputs, wanted, as_tuple

    def __missing__(self, key) -> int:
        hits = _hits(self.wanted, self.as_tuple(key))
        value = self[key] = priority(_total(self.inputs, hits), self.inputs.num_containers)
        return value


class ImageLocality(Plugin):
    name = NAME
    is_score = True

    def __init__(self, args: dict | None = None) -> None:
        super().__init__(args)
        check_fields(self.args, (), "")

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any) -> None:
        # Spread counts every node of the snapshot, not only the ones being scored.
        spec = pod.pod.get("spec") or {}
        containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
        images = tuple(normalize_image(c.get("image") or "") for c in containers)
        total = len(snapshot)
        counts = tuple(snapshot.image_num_nodes.get(image, 0) for image in images)
        state[NAME] = ImageInputs(
            images, tuple(float(n) / float(total) for n in counts), counts, total, len(containers)
        )

    def score(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> ScoreColumn:
        inputs: ImageInputs = state[NAME]
        # An image that no node holds adds nothing anywhere.
        wanted = tuple(i for i, spread in enumerate(inputs.spread) if spread > 0)
        if not wanted:
            raw = [priority(0, inputs.num_containers)] * len(nodes)
            return ScoreColumn.lazy(raw, _detail, *inputs, wanted)
        # A node's score depends only on the sizes it reports for the wanted images: score each
        # distinct combination once.
        if len(wanted) == 1:
            image = inputs.images[wanted[0]]
            held = [node.images.get(image) for node in nodes]
            by_sizes = _ScoreMemo(inputs, wanted, lambda size: (size,))
            columns = [tuple(held)]
        else:
            names = [inputs.images[i] for i in wanted]
            held = [tuple(map(node.images.get, names)) for node in nodes]
            by_sizes = _ScoreMemo(inputs, wanted, lambda sizes: sizes)
            columns = list(zip(*held, strict=True))
        return ScoreColumn.lazy(list(map(by_sizes.__getitem__, held)), _detail, *inputs, wanted, *columns)

    def explain_score(self, detail: Any, raw: int, normalized: int, weight: int) -> Why:
        inputs, total, hits = detail
        limit = f"1000·{inputs.num_containers}" if inputs.num_containers > 1 else "1000"
        if not hits:
            return Why(
                f"The node's status.images holds none of the pod's images ({', '.join(inputs.images)}) "
                f"→ sum 0 MiB, below the 23 MiB floor → {raw}. "
                f"Score {raw} × weight {weight} = {raw * weight}.",
                f"节点的 status.images 中没有该 Pod 的任何镜像（{'、'.join(inputs.images)}）"
                f"→ 总和 0 MiB，低于 23 MiB 下限 → {raw}。得分 {raw} × 权重 {weight} = {raw * weight}。",
            )
        scaled = [(i, size, int(float(size) * inputs.spread[i])) for i, size in hits]
        en = [
            f"{inputs.images[i]} ({mib(size)} MiB) on {inputs.num_nodes[i]} of {inputs.total_nodes} nodes → "
            f"{mib(part)} MiB"
            for i, size, part in scaled
        ]
        zh = [
            f"{inputs.images[i]}（{mib(size)} MiB）在 {inputs.num_nodes[i]}/{inputs.total_nodes} 个节点上 → "
            f"{mib(part)} MiB"
            for i, size, part in scaled
        ]
        clamped = min(max(total, MIN_THRESHOLD), inputs.max_threshold)
        formula = f"100·({mib(clamped)}−23)/({limit}−23) = {raw}"
        if total < MIN_THRESHOLD:
            en.append(f"sum {mib(total)} MiB < 23 MiB floor → {formula}")
            zh.append(f"总和 {mib(total)} MiB 低于 23 MiB 下限 → {formula}")
        elif total > inputs.max_threshold:
            en.append(f"sum {mib(total)} MiB capped at {limit} MiB → {formula}")
            zh.append(f"总和 {mib(total)} MiB 封顶为 {limit} MiB → {formula}")
        else:
            en.append(formula)
            zh.append(formula)
        return Why(
            f"{'; '.join(en)} (sizes in MiB; {inputs.num_containers} container(s) incl. init). "
            f"Score {raw} × weight {weight} = {raw * weight}.",
            f"{'；'.join(zh)}（单位 MiB；含 init 容器共 {inputs.num_containers} 个）。"
            f"得分 {raw} × 权重 {weight} = {raw * weight}。",
        )

"""A container's writable layer: what `touch`, `mkdir`, `rm` and `>` change.

It lives as long as the container (keyed by its containerID): a restart gets a new container id
and an empty layer, as with Docker. Kept in this process's memory, bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

MAX_CONTAINERS = 2000


@dataclass(slots=True)
class Overlay:
    files: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)  # whiteouts over the image's paths
    kv: dict[str, str] = field(default_factory=dict)  # a redis container's keys (its memory)


_layers: OrderedDict[str, Overlay] = OrderedDict()
_lock = threading.Lock()


def overlay_for(container_id: str) -> Overlay:
    with _lock:
        layer = _layers.get(container_id)
        if layer is None:
            layer = _layers[container_id] = Overlay()
            while len(_layers) > MAX_CONTAINERS:
                _layers.popitem(last=False)
        else:
            _layers.move_to_end(container_id)
        return layer

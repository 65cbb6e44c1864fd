"""Facts read off a pod object, shared by the components that act on them."""

from __future__ import annotations


def changed_images(pod: dict) -> set[str]:
    """Containers whose spec.image differs from the image they run (kubectl set image on a pod)."""
    running = {
        c.get("name"): c.get("image") for c in (pod.get("status") or {}).get("containerStatuses") or []
    }
    return {
        c["name"]
        for c in (pod.get("spec") or {}).get("containers") or []
        if c["name"] in running and running[c["name"]] and running[c["name"]] != c.get("image")
    }


def scheduling_gates(pod: dict) -> list[str]:
    """The names in spec.schedulingGates: while there is one, the scheduler does not try the pod."""
    spec = pod.get("spec")
    gates = spec.get("schedulingGates") if isinstance(spec, dict) else None
    if not isinstance(gates, list):
        return []
    return [str(gate.get("name", "")) for gate in gates if isinstance(gate, dict)]

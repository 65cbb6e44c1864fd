"""Priority admission for `manage.py explain`'s files: a pod that names a PriorityClass of the
cluster file (or the system classes) gets its value and preemptionPolicy, as the API server's
Priority admission gives them; a pod that sets `spec.priority` itself and names no class keeps it
(explain also reads pods written before PriorityClasses were in the file)."""

from __future__ import annotations

from cluster.apiserver.admission.priority import resolve
from cluster.apiserver.errors import ApiError
from cluster.kinds.scheduling.priorityclass import SYSTEM_CLASSES


class PriorityError(ValueError):
    pass


class PriorityClasses:
    def __init__(self, classes: dict[str, dict]) -> None:
        self.classes = classes

    def find(self, name: str) -> dict | None:
        if name in SYSTEM_CLASSES:
            return {"metadata": {"name": name}, "value": SYSTEM_CLASSES[name][0]}
        return self.classes.get(name)

    def default(self) -> dict | None:
        found = [pc for pc in self.classes.values() if pc.get("globalDefault")]
        return min(found, key=lambda pc: pc.get("value", 0)) if found else None

    def admit(self, pod: dict) -> None:
        spec = pod.get("spec") or {}
        if not spec.get("priorityClassName") and (spec.get("priority") is not None or self.default() is None):
            return
        try:
            resolve(pod, self)
        except ApiError as err:
            raise PriorityError(err.message.split(" is forbidden: ", 1)[-1]) from None

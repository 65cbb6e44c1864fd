"""The websocket's message types and their fields (docs/architecture.md, "Websocket messages").

Each schema names the fields a message must carry and their types; a message may carry more
(added fields are compatible), but never miss one or carry one with the wrong type.
"""

from __future__ import annotations

OPTIONAL = object()  # marks a schema entry whose value may also be None
TEXT = {"en": str, "zh": str}  # every translated text on the wire: one pair
REQUESTS = {"cpu": int, "memory": int}  # a pod's summed requests: millicores, bytes

STEP = {
    "type": str,
    "cluster": str,
    "trace": str,
    "seq": int,
    "step": int,
    "actor": str,
    "from": str,
    "to": str,
    "title": TEXT,
    "detail": TEXT,
    "skipped": bool,
    "object": {"kind": str, "namespace": str, "name": str},
    "node": str,
    "revision": (int, OPTIONAL),
    "ts": (str, OPTIONAL),
    "id": int,
}
TRACE = {
    "id": str,
    "kind": str,
    "namespace": str,
    "name": str,
    "verb": str,
    "client": str,
    "created_at": str,
    "finished_at": (str, OPTIONAL),
    "steps_total": int,
    "step_counts": dict,  # step number (as text) -> how many steps of it the trace has
    "gate_step": int,  # step mode: the step that waits at the gate for "next" (0: none)
    "steps": [STEP],
}
OBJECT_EVENT = {
    "type": str,
    "cluster": str,
    "revision": int,
    "prev_revision": int,
    "kind": str,
    "object": {"apiVersion": str, "kind": str, "metadata": {"name": str, "resourceVersion": str}},
}
EXEC_SESSION = {
    "id": int,
    "cluster": str,
    "namespace": str,
    "pod": str,
    "container": str,
    "command": [str],
    "user": str,
    "client": str,
    "tty": bool,
    "opened_at": str,
    "closed_at": (str, OPTIONAL),
    "exit_code": (int, OPTIONAL),
}
PREDICTION = {
    "id": int,
    "version": int,
    "state": str,  # open / closed / cancelled
    "armed_at": str,
    "closed_at": (str, OPTIONAL),
    "ask_plugin": bool,
    "nodes": [str],
    "plugins": [str],
    "votes": int,
    "answer": (dict, OPTIONAL),  # once closed: trace, namespace, pod, node, explanation, deciding
    "tally": (dict, OPTIONAL),  # once closed: nodes, plugins, right, right_plugin
}
SCHEMAS: dict[str, dict] = {
    "snapshot": {
        "type": str,
        "cluster": str,
        "revision": int,
        "step_id": int,
        "traces": [TRACE],
        "pace_ms": int,
        "step_mode": bool,
        "class_may_write": bool,
        "nodes": [dict],
        "pods": [dict],
        "workloads": [dict],
        "pod_status": dict,  # "namespace/name" -> kubectl's STATUS column
        "pod_requests": dict,  # "namespace/name" -> REQUESTS
        "exec_sessions": [EXEC_SESSION],
        "prediction": (PREDICTION, OPTIONAL),
    },
    "object.added": OBJECT_EVENT,
    "object.modified": OBJECT_EVENT,
    "object.deleted": OBJECT_EVENT,
    "flow.step": STEP,
    "flow.end": {**STEP, "outcome": str, "by": str, "final": bool},  # final ones: finished_at too
    "flow.settings": {"type": str, "pace_ms": int, "step_mode": bool},
    "flow.gate": {"type": str, "cluster": str, "trace": str, "step": int},
    "access": {"type": str, "class_may_write": bool},
    "prediction": {"type": str, "round": (PREDICTION, OPTIONAL)},
    "resync": {"type": str},
    "error": {"type": str, "message": str},
    "exec.session": {"type": str, "session": EXEC_SESSION},
}


def problems(value: object, schema: object, where: str = "$") -> list[str]:
    """Where `value` does not fit `schema` (empty when it fits)."""
    if isinstance(schema, tuple):
        kind, optional = schema
        if value is None and optional is OPTIONAL:
            return []
        return problems(value, kind, where)
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {type(value).__name__}"]
        found = []
        for key, sub in schema.items():
            if key not in value:
                found.append(f"{where}.{key}: missing")
            else:
                found += problems(value[key], sub, f"{where}.{key}")
        return found
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [p for i, item in enumerate(value) for p in problems(item, schema[0], f"{where}[{i}]")]
    if schema is int and isinstance(value, bool):
        return [f"{where}: expected int, got bool"]
    if not isinstance(value, schema):  # type: ignore[arg-type]
        return [f"{where}: expected {schema.__name__}, got {type(value).__name__}"]
    return []


def check(message: dict) -> None:
    """Fail unless `message` is of a known type and fits its schema."""
    schema = SCHEMAS.get(message.get("type"))
    assert schema is not None, f"unknown websocket message type {message.get('type')!r}"
    assert problems(message, schema) == [], message["type"]

"""Every writer carries its flow recorder: an Actor that names none is a user's request, which
starts traces (steps 1–4), so a component's Actor must name its own (cluster/flow/writers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
RUNTIME = ("cluster", "scheduler", "dashboard", "labs", "kubesim", "bench")
USERS = {"kubectl", "web", "upload", "api"}  # the clients of cluster/api/http.py actor_for


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _actors_without_a_recorder() -> list[str]:
    found = []
    for package in RUNTIME:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call) or _called(node.func) != "Actor":
                    continue
                client = (
                    node.args[0]
                    if node.args
                    else next((k.value for k in node.keywords if k.arg == "client"), None)
                )
                named = any(k.arg == "flow" for k in node.keywords)
                if not named and not (isinstance(client, ast.Constant) and client.value in USERS):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_actor_a_component_builds_names_its_flow_recorder():
    assert _actors_without_a_recorder() == []

"""One settings surface: every environment variable is read once, in kubesim/settings.py, and
docs/configuration.md lists exactly those (and the tests' own)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "kubesim" / "settings.py"
DOC = ROOT / "docs" / "configuration.md"
ENV_HELPERS = ("envbool", "envint", "envlist", "envnetworks")  # kubesim/env.py, for the settings


def _variables_read(path: Path, helpers: bool = False) -> set[str]:
    """Names read from the environment: os.environ.get(NAME), os.getenv(NAME), os.environ[NAME]
    (and with `helpers`, the settings' env*(NAME))."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            from_environ = (
                name == "get" and isinstance(func, ast.Attribute) and ast.unparse(func.value) == "os.environ"
            )
            if from_environ or name == "getenv" or (helpers and name in ENV_HELPERS):
                found.add(node.args[0].value)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.slice, ast.Constant)
        ):
            found.add(node.slice.value)
    return {name for name in found if isinstance(name, str)}


def _documented(section: str) -> set[str]:
    text = DOC.read_text().split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z_]+)` \|", text, re.MULTILINE))


def _python_files() -> list[Path]:
    skip = {".venv", "staticfiles", "node_modules", ".git"}
    return [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]


def test_the_page_lists_every_variable_the_settings_read_and_no_other():
    assert _documented("KubeSim") == _variables_read(SETTINGS, helpers=True)


def test_outside_the_settings_only_the_tests_read_kubesim_variables_and_the_page_lists_those():
    elsewhere: dict[str, set[str]] = {}
    for path in _python_files():
        if path != SETTINGS:
            for name in _variables_read(path):
                if name.startswith("KUBESIM_"):
                    elsewhere.setdefault(str(path.relative_to(ROOT)), set()).add(name)
    assert {p for p in elsewhere if not p.startswith("tests/")} == set()
    read_by_tests = set().union(*elsewhere.values())
    assert read_by_tests == _documented("The tests")


def test_no_module_repeats_a_default_of_the_settings():
    repeated = [
        f"{path.relative_to(ROOT)}: {match}"
        for path in _python_files()
        for match in re.findall(r'getattr\(settings, "KUBESIM_\w+"', path.read_text())
    ]
    assert repeated == []

"""Import rules, checked on the source (AST): dependencies stay visible and one-way.

- `scheduler/engine/` is pure Python: it imports neither Django nor `cluster` (nor `dashboard`,
  `labs`, `kubesim`); shared Kubernetes helpers come from `k8s/`, which is pure Python too.
- `database/` (the layer under the ORM) imports nothing of the project above it.
- `kubesim/` is the Django project: only its own modules, management commands and the benchmarks
  import it.
- `bench/` (benchmarks, hostile clients) is imported by no runtime module, only by tests.
- `cluster` imports of `scheduler` are of its pure engine only: the scheduler app provides its
  component, queue, decisions and pruning at start-up (`cluster/schedulerport.py`); no package
  imports one that imports it back, function-level imports included.
- No import circle between modules (module-level imports, `if TYPE_CHECKING:` blocks aside), and
  none once function-level imports count too (`AppConfig.ready()` aside).
- No function-level import of a module of the same package: such an import only exists to dodge
  a circle. Django's `AppConfig.ready()` is the one place that must import late (models are not
  loadable before the app registry is ready).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bench", "cluster", "dashboard", "database", "k8s", "kubesim", "labs", "scheduler")
RUNTIME = ("cluster", "dashboard", "database", "k8s", "kubesim", "labs", "scheduler")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                found[_module_name(path)] = path
    return found


SOURCES = _sources()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.Import | ast.ImportFrom, module: str, path: Path) -> list[str]:
    """The project modules an import statement loads (`from pkg import mod` names pkg.mod)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for _ in range(node.level - 1):
            package = package.rsplit(".", 1)[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in SOURCES else base for a in node.names]


def _imports(module: str, path: Path) -> tuple[list[str], list[tuple[int, str, str]]]:
    """(module-level imports, [(line, enclosing function, target)] of function-level imports)."""
    tree = ast.parse(path.read_text(), str(path))
    top: list[str] = []
    late: list[tuple[int, str, str]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _targets(child, module, path):
                    if function is None:
                        top.append(target)
                    else:
                        late.append((child.lineno, function, target))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
            else:
                visit(child, function)

    visit(tree, None)
    return top, late


IMPORTS = {module: _imports(module, path) for module, path in SOURCES.items()}


def test_the_scheduler_engine_imports_neither_django_nor_the_rest_of_the_project():
    forbidden = ("django", "channels", "cluster", "dashboard", "labs", "kubesim")
    offences = [
        f"{module} imports {target}"
        for module, (top, late) in IMPORTS.items()
        if module.startswith("scheduler.engine")
        for target in [*top, *(t for _, _, t in late)]
        if target.split(".")[0] in forbidden
    ]
    assert offences == []


def _offences(importers, forbidden) -> list[str]:
    return [
        f"{module} imports {target}"
        for module, (top, late) in IMPORTS.items()
        if importers(module)
        for target in [*top, *(t for _, _, t in late)]
        if target.split(".")[0] in forbidden
    ]


def test_k8s_helpers_are_pure_python():
    project = tuple(p for p in PACKAGES if p != "k8s")
    assert _offences(lambda m: m.split(".")[0] == "k8s", ("django", "channels", *project)) == []


def test_the_database_layer_imports_nothing_above_it():
    above = ("bench", "cluster", "dashboard", "kubesim", "labs", "scheduler")
    assert _offences(lambda m: m.split(".")[0] == "database", above) == []


def test_only_the_django_project_its_commands_and_the_benchmarks_import_it():
    def importer(module: str) -> bool:
        return module.split(".")[0] not in ("kubesim", "bench") and ".management.commands." not in module

    assert _offences(importer, ("kubesim",)) == []


def test_no_runtime_module_imports_the_benchmarks():
    assert _offences(lambda m: m.split(".")[0] in RUNTIME, ("bench",)) == []


def _layer(module: str) -> str:
    """A module's package; the scheduler's pure engine is a layer of its own, below the cluster."""
    return "scheduler.engine" if module.startswith("scheduler.engine") else module.split(".")[0]


def test_packages_depend_one_way_function_level_imports_included():
    # The cluster reaches the scheduler app only through what it provides at start-up
    # (cluster/schedulerport.py), so no package imports one that imports it back.
    graph: dict[str, set[str]] = {}
    for module, (top, late) in IMPORTS.items():
        for target in [*top, *(t for _, _, t in late)]:
            if target in SOURCES and _layer(target) != _layer(module):
                graph.setdefault(_layer(module), set()).add(_layer(target))
    assert "scheduler" not in graph.get("cluster", set())
    layers = {_layer(module) for module in SOURCES}
    assert _circles({layer: sorted(graph.get(layer, ())) for layer in layers}) == []


def _circles(graph: dict[str, list[str]]) -> list[list[str]]:
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def walk(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in graph[module]:
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                walk(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)
    return circles


def test_there_is_no_import_circle_between_modules():
    graph = {m: sorted({t for t in top if t in SOURCES and t != m}) for m, (top, _) in IMPORTS.items()}
    assert [" -> ".join(c) for c in _circles(graph)] == []


# The simulated shell's `commands` package and its interpreter still import each other through
# function-level imports; the shell's rewrite as a sandboxed interpreter removes that circle.
SHELL = "cluster.shell"


def test_function_level_imports_close_no_circle_either():
    """A late import hides a circle from the test above; counted as imports, none may close one."""
    graph = {
        m: sorted(
            {t for t in [*top, *(t for line, f, t in late if not _ready(m, f))] if t in SOURCES and t != m}
        )
        for m, (top, late) in IMPORTS.items()
    }
    circles = [c for c in _circles(graph) if not all(m.startswith(SHELL) for m in c)]
    assert [" -> ".join(c) for c in circles] == []


def _ready(module: str, function: str) -> bool:
    """Django's AppConfig.ready(): models load only once the app registry is ready."""
    return module.endswith(".apps") and function == "ready"


def _package(module: str) -> str:
    return module if SOURCES[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def test_no_function_level_import_of_a_sibling_module():
    offences = []
    for module, (_, late) in IMPORTS.items():
        for line, function, target in late:
            if _ready(module, function):
                continue
            if target in SOURCES and target != module and _package(target) == _package(module):
                offences.append(f"{SOURCES[module].relative_to(ROOT)}:{line} {function}() imports {target}")
    assert offences == []

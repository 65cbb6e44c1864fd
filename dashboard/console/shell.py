"""What the console's shell adds around kubectl: its working directory (`ls`, `cat`, `-f FILE`),
`--help` for every command (kubectl's own usage text), `version` and `api-resources`."""

from __future__ import annotations

from pathlib import Path

from cluster.kubeapi.resources import VERSION, discovery_groups
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, UsageError
from dashboard.console.reads import HELP
from dashboard.console.result import ConsoleResult
from dashboard.console.workdir import Workdir

HELP_DIR = Path(__file__).resolve().parent / "help"
# kubectl v1.33's client and the kustomize it embeds; the server is KubeSim's API server.
CLIENT_VERSION = VERSION["gitVersion"]
KUSTOMIZE_VERSION = "v5.6.0"


def usage(path: tuple[str, ...]) -> str:
    """`kubectl COMMAND --help`: kubectl's own text, its options cut to those this console knows."""
    text = HELP_DIR / f"{'-'.join(path)}.txt"
    if not text.is_file():
        return HELP
    return text.read_text(encoding="utf-8")


def file_input(workdir: Workdir, cmd: CommandLine, stdin: str) -> str:
    """`-f FILE`: the file's text from the working directory (`-f -` keeps what was pasted)."""
    name = cmd.flag("filename")
    if not name or name == "-":
        return stdin
    text = workdir.read(name)
    if text is None:
        raise UsageError(f'error: the path "{name}" does not exist')
    return text


def ls(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    workdir = ctx.workdir
    if cmd.args:
        missing = [name for name in cmd.args if workdir.read(name) is None]
        if missing:
            text = "".join(f"ls: cannot access '{name}': No such file or directory\n" for name in missing)
            return ConsoleResult(text, 2)
        return ConsoleResult("".join(f"{name}\n" for name in cmd.args))
    return ConsoleResult("".join(f"{name}\n" for name in workdir.names()))


def cat(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    workdir = ctx.workdir
    out, code = [], 0
    for name in cmd.args:
        text = workdir.read(name)
        if text is None:
            out.append(f"cat: {name}: No such file or directory\n")
            code = 1
            continue
        out.append(text if text.endswith("\n") or not text else text + "\n")
    return ConsoleResult("".join(out), code)


def version(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    return ConsoleResult(
        f"Client Version: {CLIENT_VERSION}\nKustomize Version: {KUSTOMIZE_VERSION}\n"
        f"Server Version: {VERSION['gitVersion']}\n"
    )


def api_resources(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    """`kubectl api-resources` as kubectl prints it: discovery's resources sorted by group, then by
    name; `--namespaced=BOOL`, `--api-group=GROUP`, `--no-headers`, `-o wide|name`."""
    output = cmd.flag("output")
    if output not in ("", "wide", "name"):
        raise UsageError(f"error: --output {output} is not available")
    if cmd.args:
        raise UsageError(f"error: unexpected arguments: [{' '.join(cmd.args)}]")
    found = [
        info
        for group, members in discovery_groups().items()
        for info in members
        if ("api_group" not in cmd.flags or cmd.flags["api_group"] == group)
        and ("namespaced" not in cmd.flags or cmd.flags["namespaced"] == info.namespaced)
    ]
    found.sort(key=lambda info: (info.group, info.plural))
    if output == "name":
        return ConsoleResult(
            "".join(f"{info.plural}{'.' + info.group if info.group else ''}\n" for info in found)
        )
    rows = [] if cmd.flags.get("no_headers") else [["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]]
    if output == "wide" and rows:
        rows[0] += ["VERBS", "CATEGORIES"]
    for info in found:
        row = [
            info.plural,
            ",".join(info.short_names),
            info.api_version,
            str(info.namespaced).lower(),
            info.kind,
        ]
        if output == "wide":
            row += [",".join(info.verbs), ",".join(info.categories)]
        rows.append(row)
    return ConsoleResult(tabwriter(rows))


def tabwriter(rows: list[list[str]], padding: int = 3) -> str:
    """Rows laid out as kubectl's tab writer does: each cell but the last padded to its column's
    widest cell plus `padding` spaces."""
    widths = [
        max(len(row[i]) for row in rows if i < len(row) - 1)
        for i in range(max(map(len, rows), default=1) - 1)
    ]
    return "".join(
        "".join(cell.ljust(widths[i] + padding) for i, cell in enumerate(row[:-1])) + row[-1] + "\n"
        for row in rows
    )

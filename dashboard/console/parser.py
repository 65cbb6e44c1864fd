"""Parse a kubectl command line the way the course types it.

Only the flags the course uses are known; an unknown flag is an error that names it, as kubectl's
own `unknown flag: --foo` is.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from cluster.apiserver.kinds import KindInfo, by_name, groups


class UsageError(Exception):
    """A command line kubectl itself would refuse; the message is what kubectl prints."""


# The console's resources are the registered kinds that say `console=True`.
Resource = KindInfo


# flag -> (canonical name, takes a value)
FLAGS: dict[str, tuple[str, bool]] = {
    "-o": ("output", True),
    "--output": ("output", True),
    "-l": ("selector", True),
    "--selector": ("selector", True),
    "-n": ("namespace", True),
    "--namespace": ("namespace", True),
    "-A": ("all_namespaces", False),
    "--all-namespaces": ("all_namespaces", False),
    "--show-labels": ("show_labels", False),
    "-w": ("watch", False),
    "--watch": ("watch", False),
    "--overwrite": ("overwrite", False),
    "--replicas": ("replicas", True),
    "-f": ("filename", True),
    "--filename": ("filename", True),
    "--field-selector": ("field_selector", True),
    "--tail": ("tail", True),
    "-c": ("container", True),
    "--container": ("container", True),
    "--no-headers": ("no_headers", False),
    # kubectl delete
    "--grace-period": ("grace_period", True),
    "--force": ("force", False),
    "--now": ("now", False),
    "--wait": ("wait", True),
    "-h": ("help", False),
    "--help": ("help", False),
    # kubectl exec
    "-i": ("stdin", False),
    "--stdin": ("stdin", False),
    "-t": ("tty", False),
    "--tty": ("tty", False),
    "-it": ("stdin_tty", False),
    "-ti": ("stdin_tty", False),
    # kubectl api-resources
    "--namespaced": ("namespaced", False),
    "--api-group": ("api_group", True),
}


def all_category() -> list[Resource]:
    """The kinds in the registry's "all" category, in discovery's order (groups as registered, the
    core group first; by plural within a group), as kubectl expands `all`."""
    return [
        info
        for members in groups().values()
        for info in sorted(members, key=lambda info: info.plural)
        if "all" in info.categories and info.console
    ]


def _expanded(name: str) -> list[Resource]:
    if name.lower() == "all":
        return all_category()
    return [resource_for(name)]


def resource_for(name: str) -> Resource:
    res = by_name(name)
    if res is None or not res.console:
        raise UsageError(f'error: the server doesn\'t have a resource type "{name}"')
    return res


@dataclass(slots=True)
class CommandLine:
    verb: str
    args: list[str] = field(default_factory=list)
    flags: dict[str, str | bool] = field(default_factory=dict)
    command: list[str] | None = None  # the words after `--` (kubectl exec's command), as typed

    def flag(self, name: str, default: str = "") -> str:
        value = self.flags.get(name, default)
        return value if isinstance(value, str) else default

    @property
    def namespace(self) -> str:
        return self.flag("namespace", "default")


def _split_flag(token: str) -> tuple[str, str | None]:
    if token in FLAGS:
        return token, None
    if token.startswith("--") and "=" in token:
        name, value = token.split("=", 1)
        return name, value
    if token.startswith("-") and not token.startswith("--") and len(token) > 2 and token[:2] in FLAGS:
        return token[:2], token[2:]  # -owide, -lapp=web
    return token, None


def _boolean(name: str, value: str) -> bool:
    """`--flag=false`: a boolean flag's value, as Go's strconv.ParseBool reads it."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    parsing = f'strconv.ParseBool: parsing "{value}": invalid syntax'
    raise UsageError(f'error: invalid argument "{value}" for "{name}" flag: {parsing}')


def parse(line: str) -> CommandLine:
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"error: {exc}") from exc
    if tokens and tokens[0] == "kubectl":
        tokens = tokens[1:]
    if not tokens:
        raise UsageError("")
    cmd = CommandLine(verb=tokens[0])
    rest = iter(tokens[1:])
    for token in rest:
        if token == "--":
            cmd.command = list(rest)
            break
        if token == "-" or not token.startswith("-"):
            cmd.args.append(token)
            continue
        name, value = _split_flag(token)
        spec = FLAGS.get(name)
        if spec is None:
            raise UsageError(f"error: unknown flag: {name}")
        canonical, takes_value = spec
        if not takes_value:
            cmd.flags[canonical] = True if value is None else _boolean(name, value)
            continue
        if value is None:
            value = next(rest, None)
            if value is None:
                raise UsageError(f"error: flag needs an argument: {name}")
        cmd.flags[canonical] = value
    return cmd


def split_targets(args: list[str]) -> list[tuple[Resource, str | None]]:
    """`pod web`, `pods`, `pod/web`, `rc,rs,deploy` -> (resource, name or None) pairs."""
    if not args:
        return []
    if "/" in args[0]:
        pairs = []
        for arg in args:
            if "/" not in arg:
                raise UsageError(
                    "error: there is no need to specify a resource type as a separate argument "
                    "when passing arguments in resource/name form"
                )
            kind, name = arg.split("/", 1)
            pairs.append((resource_for(kind), name))
        return pairs
    kinds = [res for part in args[0].split(",") if part for res in _expanded(part)]
    names = args[1:]
    if not names:
        return [(res, None) for res in kinds]
    if len(kinds) > 1:
        raise UsageError("error: you must specify only one resource type when naming objects")
    return [(kinds[0], name) for name in names]

"""Parse a kubectl command line as kubectl (cobra) does: the command path, then its flags.

The console knows a command's path (`create deployment`, `rollout status`) and, for each command,
the flags it takes. A flag kubectl has but the console does not take says so plainly; a flag
kubectl does not have gets kubectl's own `unknown flag` error. What kubectl has is in
`kubectl.json` (generated from kubectl v1.32's help: its commands, their subcommands and
aliases, each command's flags and the global ones).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from cluster.apiserver.kinds import KindInfo, by_name, groups

KUBECTL = json.loads((Path(__file__).resolve().parent / "kubectl.json").read_text(encoding="utf-8"))


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
    "--show-managed-fields": ("show_managed_fields", False),
    "-w": ("watch", False),
    "--watch": ("watch", False),
    "--overwrite": ("overwrite", False),
    "--replicas": ("replicas", True),
    "-r": ("replicas", True),
    "--current-replicas": ("current_replicas", True),
    "-f": ("filename", True),
    "--filename": ("filename", True),
    "--field-selector": ("field_selector", True),
    "--tail": ("tail", True),
    "-p": ("previous", False),
    "--previous": ("previous", False),
    "--timestamps": ("timestamps", False),
    "-c": ("container", True),
    "--container": ("container", True),
    "--no-headers": ("no_headers", False),
    # kubectl top
    "--sort-by": ("sort_by", True),
    "--containers": ("containers", False),
    # kubectl delete, drain
    "--grace-period": ("grace_period", True),
    "--force": ("force", False),
    "--now": ("now", False),
    "--wait": ("wait", False),
    "--timeout": ("timeout", True),
    "-h": ("help", False),
    "--help": ("help", False),
    # kubectl exec, run
    "-i": ("stdin", False),
    "--stdin": ("stdin", False),
    "-t": ("tty", False),
    "--tty": ("tty", False),
    "-it": ("stdin_tty", False),
    "-ti": ("stdin_tty", False),
    # kubectl api-resources
    "--namespaced": ("namespaced", False),
    "--api-group": ("api_group", True),
    # kubectl run, create deployment|job
    "--image": ("image", True),
    "--labels": ("labels", True),
    "--port": ("port", True),
    "--restart": ("restart", True),
    "--env": ("env", True),
    "--command": ("command", False),
    "--image-pull-policy": ("image_pull_policy", True),
    "--dry-run": ("dry_run", True),
    # kubectl create service|configmap|secret|priorityclass
    "--tcp": ("tcp", True),
    "--node-port": ("node_port", True),
    "--clusterip": ("clusterip", True),
    "--external-name": ("external_name", True),
    "--from-literal": ("from_literal", True),
    "--from-file": ("from_file", True),
    "--from-env-file": ("from_env_file", True),
    "--type": ("type", True),
    "--value": ("value", True),
    "--hard": ("hard", True),
    "--scopes": ("scopes", True),
    "--description": ("description", True),
    "--global-default": ("global_default", False),
    "--preemption-policy": ("preemption_policy", True),
    # kubectl expose
    "--name": ("name", True),
    "--target-port": ("target_port", True),
    "--protocol": ("protocol", True),
    # kubectl rollout
    "--revision": ("revision", True),
    "--to-revision": ("to_revision", True),
    # kubectl drain
    "--ignore-daemonsets": ("ignore_daemonsets", False),
    "--delete-emptydir-data": ("delete_emptydir_data", False),
    "--disable-eviction": ("disable_eviction", False),
    "--pod-selector": ("pod_selector", True),
}
# Flags that may be given more than once, each value kept (`--image=a --image=b`, `--env`).
REPEATED = frozenset({"image", "env", "tcp", "from_literal", "from_file", "from_env_file"})
# The flags every command takes.
GLOBAL = frozenset({"-n", "--namespace", "-h", "--help"})


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
    path: tuple[str, ...]  # ("create", "deployment"): the command and its subcommands, as named
    args: list[str] = field(default_factory=list)
    flags: dict[str, str | bool] = field(default_factory=dict)
    repeated: dict[str, list[str]] = field(default_factory=dict)  # every value of a REPEATED flag
    command: list[str] | None = None  # the words after `--` (exec's command, run's args), as typed

    @property
    def verb(self) -> str:
        return self.path[0]

    @property
    def name(self) -> str:
        """The command as kubectl names it in its messages: `create deployment`."""
        return " ".join(self.path)

    def flag(self, name: str, default: str = "") -> str:
        value = self.flags.get(name, default)
        return value if isinstance(value, str) else default

    def values(self, name: str) -> list[str]:
        return self.repeated.get(name, [])

    @property
    def namespace(self) -> str:
        return self.flag("namespace", "default")


def _split_flag(token: str) -> tuple[str, str | None]:
    if token in FLAGS:
        return token, None
    if token.startswith("--") and "=" in token:
        name, value = token.split("=", 1)
        return name, value
    if token.startswith("-") and not token.startswith("--") and len(token) > 2:
        if token[:2] in FLAGS and FLAGS[token[:2]][1]:
            return token[:2], token[2:].removeprefix("=")  # -owide, -lapp=web, -r=3
        return token, None
    return token, None


def _boolean(name: str, value: str) -> bool:
    """`--flag=false`: a boolean flag's value, as Go's strconv.ParseBool reads it."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    parsing = f'strconv.ParseBool: parsing "{value}": invalid syntax'
    raise UsageError(f'error: invalid argument "{value}" for "{name}" flag: {parsing}')


def _children(path: tuple[str, ...]) -> dict[str, str]:
    """A command's subcommands by every name kubectl takes for them (aliases too)."""
    key = " ".join(path)
    names = {}
    for child in KUBECTL["subcommands"].get(key, []):
        names[child] = child
        for alias in KUBECTL["aliases"].get(f"{key} {child}", []):
            names[alias] = child
    return names


def _command_path(tokens: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """The command's path and the words that named it: the first word, then each word that names
    a subcommand of the path so far (flags, and the values of flags that take one, are skipped as
    cobra skips them)."""
    path: list[str] = []
    words: list[str] = []
    rest = iter(tokens)
    for token in rest:
        if token == "--":
            break
        if token.startswith("-") and token != "-":
            name, value = _split_flag(token)
            if name in FLAGS and FLAGS[name][1] and value is None:
                next(rest, None)
            continue
        child = _children(tuple(path)).get(token) if path else token
        if child is None:
            break
        path.append(child)
        words.append(token)
    return tuple(path), words


def kubectl_flags(path: tuple[str, ...]) -> set[str]:
    """Every flag real kubectl takes for this command, its own and the global ones."""
    return set(KUBECTL["flags"].get(" ".join(path), [])) | set(KUBECTL["global_flags"])


def whole_number(text: str, flag: str) -> int:
    """A number given to --`flag`, refused in pflag's words when it is not one."""
    try:
        return int(text)
    except ValueError:
        parsing = f'strconv.ParseInt: parsing "{text}": invalid syntax'
        raise UsageError(f'error: invalid argument "{text}" for "--{flag}" flag: {parsing}') from None


def not_run(cmd: CommandLine) -> str:
    """What the console says of a command kubectl has and the console does not run."""
    return (
        f'error: the web console does not run "kubectl {cmd.name}" '
        "(the real kubectl does: Download kubeconfig)"
    )


def _refuse_flag(name: str, path: tuple[str, ...]) -> UsageError:
    see = f"See 'kubectl {' '.join(path)} --help' for usage."
    if name in kubectl_flags(path):
        return UsageError(
            f'error: the web console does not take {name} for "kubectl {" ".join(path)}" '
            f"(the real kubectl does: Download kubeconfig)\n{see}"
        )
    if name.startswith("--"):
        return UsageError(f"error: unknown flag: {name}\n{see}")
    return UsageError(f"error: unknown shorthand flag: '{name[1]}' in {name}\n{see}")


def parse(line: str, accepted: dict[tuple[str, ...], frozenset[str]] | None = None) -> CommandLine:
    """The command line's path, arguments and flags. `accepted`: the flags each command path takes
    (besides GLOBAL); a path not in it takes every flag of FLAGS."""
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"error: {exc}") from exc
    if tokens and tokens[0] == "kubectl":
        tokens = tokens[1:]
    path, words = _command_path(tokens)
    if not path:
        raise UsageError("")
    takes = None if accepted is None or path not in accepted else accepted[path] | GLOBAL
    cmd = CommandLine(path=path)
    rest = iter(tokens)
    for token in rest:
        if token == "--":
            cmd.command = list(rest)
            break
        if token == "-" or not token.startswith("-"):
            if words and token == words[0]:
                words.pop(0)  # a word that named the command
            else:
                cmd.args.append(token)
            continue
        name, value = _split_flag(token)
        spec = FLAGS.get(name)
        if spec is None or (takes is not None and name not in takes):
            raise _refuse_flag(name, path)
        canonical, takes_value = spec
        if not takes_value:
            cmd.flags[canonical] = True if value is None else _boolean(name, value)
            continue
        if value is None:
            value = next(rest, None)
            if value is None:
                raise UsageError(f"error: flag needs an argument: {name}")
        cmd.flags[canonical] = value
        if canonical in REPEATED:
            cmd.repeated.setdefault(canonical, []).extend(value.split(",") if canonical == "tcp" else [value])
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

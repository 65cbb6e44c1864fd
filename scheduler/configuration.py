"""The scheduler's configuration per cluster: the ConfigMap kube-system/kube-scheduler, key config.yaml.

Its KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) is read by the live scheduler
whenever the ConfigMap changes, by the what-if endpoint and by the settings view. A file that does
not validate is answered with the engine's located error (the field path and its line); the live
scheduler then keeps its last good configuration, as a restarted kube-scheduler would refuse the
file and the running one keep going (docs/scheduler.md §5).
"""

from __future__ import annotations

from dataclasses import dataclass

from k8s.yamldocs import YamlError, load_documents
from scheduler.engine.config import ConfigError, SchedulerConfig, default_config, load_config

NAMESPACE = "kube-system"
NAME = "kube-scheduler"
KEY = "config.yaml"
# A configuration is a few hundred bytes; a ConfigMap may hold 1 MiB, which the parser needn't read.
MAX_CONFIG_BYTES = 64 * 1024


class InvalidConfiguration(ValueError):
    """config.yaml does not validate; the message names the line and the field."""


def is_config_map(obj: dict) -> bool:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") == NAMESPACE and meta.get("name") == NAME


def config_text(config_map: dict | None) -> str | None:
    """config.yaml of the ConfigMap; None when there is no ConfigMap or it has no such key."""
    if not config_map:
        return None
    text = (config_map.get("data") or {}).get(KEY)
    return text if isinstance(text, str) else None


def parse(text: str | None) -> SchedulerConfig:
    """The configuration `text` describes (None: the defaults), or InvalidConfiguration."""
    if text is None or not text.strip():
        return default_config()
    if len(text.encode("utf-8", "replace")) > MAX_CONFIG_BYTES:
        raise InvalidConfiguration(f"{KEY}: longer than {MAX_CONFIG_BYTES // 1024} KiB")
    try:
        documents = load_documents(text)
    except YamlError as err:
        line = f" (line {err.line})" if err.line else ""
        raise InvalidConfiguration(f"{KEY}{line}: invalid YAML: {err.message}") from None
    if len(documents) != 1:
        raise InvalidConfiguration(f"{KEY}: expected one KubeSchedulerConfiguration, found {len(documents)}")
    document = documents[0]
    try:
        return load_config(document.data)  # type: ignore[arg-type]
    except ConfigError as err:
        line = document.line_of(error_path(str(err)))
        where = f"{KEY} (line {line})" if line else KEY
        raise InvalidConfiguration(f"{where}: {err}") from None


def error_path(message: str) -> tuple:
    """The field path a ConfigError starts with, as the YAML document's path parts."""
    field = message.split(":", 1)[0]
    parts = field.replace("[", ".").replace("]", "").split(".")
    return tuple(int(p) if p.isdigit() else p for p in parts if p)


def from_config_map(config_map: dict | None) -> SchedulerConfig:
    return parse(config_text(config_map))


@dataclass(slots=True)
class Reading:
    """What a reader of the ConfigMap makes of it now: the configuration, or why it is refused."""

    config: SchedulerConfig | None
    error: str | None
    text: str | None


def read(config_map: dict | None) -> Reading:
    text = config_text(config_map)
    try:
        return Reading(parse(text), None, text)
    except InvalidConfiguration as err:
        return Reading(None, str(err), text)


def refused_message(error: str) -> str:
    """The Warning Event's message on the ConfigMap when the scheduler refuses a configuration."""
    return f"{error}; the scheduler keeps its last valid configuration"

"""The check vocabulary of lab files: each check type and the keys it takes.

Pure data, shared by the loader (which validates lab files against it) and by `labs.checks`
(which evaluates the checks against a sandbox). `docs/labs.md` documents the same table.
"""

from __future__ import annotations

from dataclasses import dataclass

from cluster.apiserver.kinds import lab_check_kinds

# Value kinds a parameter can take; the loader checks each one (see loader._check_value).
STR = "string"
INT = "integer"
SCALAR = "scalar"  # string, number, boolean or null
PATH = "path"  # JSONPath-like: spec.nodeName, status.containerStatuses[0].ready, metadata.labels["a/b"]
REGEX = "regex"
SELECTOR = "selector"  # a label selector: app=web,tier!=db,env in (a,b)
LABEL = "label"  # key or key=value
TEXT = "text"  # {en: ..., zh: ...}
TEXTS = "texts"  # a list of regular expressions
WRONG = "wrong"  # an answer check's known wrong answers: [{answers: [regex, ...], hint: {en, zh}}]
FIELDS = "fields"  # {path: scalar, ...}
BOOL = "boolean"
KIND = "kind"
PHASE = "phase"
EFFECT = "effect"

PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@dataclass(frozen=True, slots=True)
class CheckSpec:
    type: str
    required: dict[str, str]
    optional: dict[str, str]
    # Groups of keys of which exactly one must be given (e.g. podOnNode: node or nodeLabel).
    one_of: tuple[tuple[str, ...], ...] = ()


# Keys every check accepts.
# `hint`: shown with the check's failure once the student acted (the hint that covers it).
COMMON = {"type": STR, "message": TEXT, "negate": BOOL, "hint": TEXT}

_OBJECT = {"kind": KIND, "name": STR}
_NS = {"namespace": STR}

SPECS: dict[str, CheckSpec] = {
    spec.type: spec
    for spec in (
        CheckSpec("exists", _OBJECT, _NS),
        CheckSpec("absent", _OBJECT, _NS),
        CheckSpec("fieldEquals", {**_OBJECT, "path": PATH, "value": SCALAR}, _NS),
        CheckSpec("fieldMatches", {**_OBJECT, "path": PATH, "pattern": REGEX}, _NS),
        CheckSpec("podPhase", {"pod": STR, "phase": PHASE}, _NS),
        CheckSpec(
            "podOnNode", {"pod": STR}, {**_NS, "node": STR, "nodeLabel": LABEL}, (("node", "nodeLabel"),)
        ),
        CheckSpec("podPending", {"pod": STR}, {**_NS, "messageContains": STR}),
        CheckSpec("nodeLabel", {"node": STR, "label": LABEL}, {}),
        CheckSpec("nodeTaint", {"node": STR, "key": STR}, {"value": STR, "effect": EFFECT}),
        CheckSpec(
            "podCount",
            {"selector": SELECTOR},
            {
                **_NS,
                "phase": PHASE,
                "fields": FIELDS,
                "count": INT,
                "min": INT,
                "max": INT,
                "distinctNodes": INT,
            },
        ),
        CheckSpec(
            "event",
            {"reason": STR},
            {**_NS, "kind": KIND, "name": STR, "messageContains": STR},
        ),
        CheckSpec("schedulingFailure", {"pod": STR, "plugin": STR, "node": STR}, _NS),
        CheckSpec("flowComplete", _OBJECT, {**_NS, "step": INT}),
        CheckSpec("answer", {"question": TEXT, "accept": TEXTS}, {"wrong": WRONG}),
    )
}

LEVELS = ("beginner", "intermediate", "advanced")


def kinds() -> tuple[str, ...]:
    """The kinds checks may name: the registry's, as registered now."""
    return lab_check_kinds()

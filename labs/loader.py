"""Lab files: read, validate as RELATE does, and turn into value objects (`labs.labmodel`).

Every problem is reported with its place ("lab 'nodeselector', step 2 ('label-node'), check 1:
unknown key 'nodeNmae' (line 14)"), and all of them at once, so that an instructor fixes a file
in one pass. The format is documented in docs/labs.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from k8s.yamldocs import YamlError, load_documents
from labs import vocabulary as v
from labs.labmodel import Check, Lab, Solution, Step, Text
from labs.schema import LabError, LabValidationError, Reader

MAX_LAB_BYTES = 512 * 1024
MAX_STEPS = 50
ID_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"

TOP = {"id": v.STR, "title": v.TEXT, "level": v.STR, "minutes": v.INT, "steps": "steps"}
TOP_OPTIONAL = {"summary": v.TEXT, "cluster": "cluster", "stuck": "stuck"}
CLUSTER_KEYS = {"pace": v.INT, "manifests": v.STR}
STUCK_KEYS = {"attempts": v.INT, "minutes": v.INT}
DEFAULT_STUCK = {"attempts": 3, "minutes": 5}
# Every step has a solution: `checklab` applies it to prove the step can be passed.
STEP = {"id": v.STR, "title": v.TEXT, "instructions": v.TEXT, "checks": "checks", "solution": "solution"}
STEP_OPTIONAL = {"hints": "hints"}
SOLUTION_KEYS = {
    "apply": v.STR,
    "commands": "commands",
    "answer": v.STR,
    "revealAfter": v.INT,
    "explanation": v.TEXT,
}
DEFAULT_REVEAL_AFTER = 3

__all__ = ["LabError", "LabValidationError", "bundled_paths", "load_lab", "load_lab_file"]


def load_lab(text: str, source: str = "") -> Lab:
    """Parse and validate one lab file. Raises LabValidationError listing every located error."""
    if len(text.encode("utf-8")) > MAX_LAB_BYTES:
        raise LabValidationError([LabError("", f"the lab file is larger than {MAX_LAB_BYTES // 1024} KiB")])
    try:
        documents = load_documents(text)
    except YamlError as exc:
        raise LabValidationError([LabError("", f"invalid YAML: {exc.message}", exc.line)]) from None
    if len(documents) != 1:
        raise LabValidationError([LabError("", "a lab file holds exactly one YAML document")])
    reader = Reader(documents[0])
    lab = _read_lab(reader, source)
    if reader.errors:
        raise LabValidationError(sorted(reader.errors, key=lambda error: error.line or 0))
    return lab


def load_lab_file(path: str | Path) -> Lab:
    path = Path(path)
    return load_lab(path.read_text(encoding="utf-8"), source=str(path))


def bundled_paths() -> list[Path]:
    return sorted(BUNDLED_DIR.glob("*.yaml"))


def _read_lab(r: Reader, source: str) -> Lab:
    data = r.doc.data
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        r.lab_id = data["id"]
    where = r.where()
    data = r.mapping(where, (), data, TOP, TOP_OPTIONAL)
    lab_id = data.get("id")
    if "id" in data and (not isinstance(lab_id, str) or not ID_PATTERN.match(lab_id)):
        r.error(where, ("id",), "id must be lowercase letters, digits and '-' (like a DNS label)")
    level = data.get("level")
    if "level" in data and level not in v.LEVELS:
        r.error(where, ("level",), f"level must be one of {', '.join(v.LEVELS)}")
    minutes = data.get("minutes")
    if "minutes" in data:
        r.typed(where, ("minutes",), minutes, v.INT)
    cluster = r.mapping(f"{where}, cluster", ("cluster",), data.get("cluster", {}), {}, CLUSTER_KEYS)
    pace = cluster.get("pace", 0)
    r.typed(f"{where}, cluster", ("cluster", "pace"), pace, v.INT)
    manifests = ""
    if "manifests" in cluster:
        manifests = r.manifests(
            f"{where}, cluster, manifests", ("cluster", "manifests"), cluster["manifests"]
        )
    stuck = _read_stuck(r, data.get("stuck", {}))
    return Lab(
        id=str(lab_id or ""),
        title=r.text(where + ", title", ("title",), data.get("title")) if "title" in data else Text("", ""),
        level=str(level or ""),
        minutes=minutes if isinstance(minutes, int) else 0,
        summary=r.text(where + ", summary", ("summary",), data["summary"]) if "summary" in data else None,
        pace_ms=pace if isinstance(pace, int) else 0,
        manifests=manifests,
        steps=_read_steps(r, data.get("steps")) if "steps" in data else (),
        source=source,
        stuck_attempts=stuck["attempts"],
        stuck_minutes=stuck["minutes"],
    )


def _read_stuck(r: Reader, value: object) -> dict:
    """`stuck: {attempts: N, minutes: M}`: when the board calls a student stuck (both optional)."""
    where = f"{r.where()}, stuck"
    data = r.mapping(where, ("stuck",), value, {}, STUCK_KEYS)
    found = dict(DEFAULT_STUCK)
    for key in STUCK_KEYS:
        if key in data:
            number = data[key]
            if isinstance(number, int) and not isinstance(number, bool) and number >= 1:
                found[key] = number
            else:
                r.error(where, ("stuck", key), f"{key} must be a whole number, 1 or more")
    return found


def _read_steps(r: Reader, steps: object) -> tuple[Step, ...]:
    if not isinstance(steps, list) or not steps:
        r.error(r.where(), ("steps",), "steps must be a non-empty list")
        return ()
    if len(steps) > MAX_STEPS:
        r.error(r.where(), ("steps",), f"a lab has at most {MAX_STEPS} steps")
    seen: set[str] = set()
    result = []
    for index, raw in enumerate(steps):
        step = _read_step(r, index, raw)
        if step.id in seen:
            r.error(r.where(f"step {index + 1} ('{step.id}')"), ("steps", index, "id"), "duplicate step id")
        seen.add(step.id)
        result.append(step)
    return tuple(result)


def _read_step(r: Reader, index: int, raw: object) -> Step:
    path = ("steps", index)
    step_id = raw.get("id") if isinstance(raw, dict) else None
    where = r.where(f"step {index + 1} ('{step_id}')" if isinstance(step_id, str) else f"step {index + 1}")
    data = r.mapping(where, path, raw, STEP, STEP_OPTIONAL)
    if "id" in data and (not isinstance(step_id, str) or not ID_PATTERN.match(step_id)):
        r.error(where, (*path, "id"), "id must be lowercase letters, digits and '-'")
    checks = _read_checks(r, where, path, data.get("checks")) if "checks" in data else ()
    hints_raw = data.get("hints", [])
    if not isinstance(hints_raw, list):
        r.error(where, (*path, "hints"), "hints must be a list of {en, zh} texts")
        hints_raw = []
    hints = tuple(
        r.text(f"{where}, hint {i + 1}", (*path, "hints", i), hint) for i, hint in enumerate(hints_raw)
    )
    solution = _read_solution(r, f"{where}, solution", (*path, "solution"), data.get("solution", {}))
    if any(check.type == "answer" for check in checks) and not solution.answer:
        r.error(f"{where}, solution", (*path, "solution"), "the step asks a question: give its 'answer'")
    return Step(
        id=str(step_id or ""),
        title=r.text(f"{where}, title", (*path, "title"), data["title"]) if "title" in data else Text("", ""),
        instructions=r.text(f"{where}, instructions", (*path, "instructions"), data["instructions"])
        if "instructions" in data
        else Text("", ""),
        checks=checks,
        hints=hints,
        solution=solution,
        line=r.doc.line_of(path),
    )


def _read_checks(r: Reader, where: str, path: tuple, raw: object) -> tuple[Check, ...]:
    if not isinstance(raw, list) or not raw:
        r.error(where, (*path, "checks"), "checks must be a non-empty list")
        return ()
    return tuple(
        _read_check(r, f"{where}, check {i + 1}", (*path, "checks", i), item) for i, item in enumerate(raw)
    )


def _read_check(r: Reader, where: str, path: tuple, raw: object) -> Check:
    kind = raw.get("type") if isinstance(raw, dict) else None
    spec = v.SPECS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        known = ", ".join(v.SPECS)
        message = "missing required key 'type'" if kind is None else f"unknown check type {kind!r}"
        r.error(where, (*path, "type") if kind else path, f"{message} (check types: {known})")
        return Check(str(kind or ""), {}, None, False, where, r.doc.line_of(path))
    data = r.mapping(where, path, raw, {**spec.required, "type": v.STR}, {**spec.optional, **v.COMMON})
    for key, value in data.items():
        value_kind = {**spec.required, **spec.optional, **v.COMMON}.get(key)
        if value_kind and value_kind != v.TEXT:
            r.typed(where, (*path, key), value, value_kind)
    for group in spec.one_of:
        given = [key for key in group if key in data]
        if len(given) != 1:
            r.error(where, path, f"give exactly one of {' or '.join(repr(k) for k in group)}")
    message = r.text(f"{where}, message", (*path, "message"), data["message"]) if "message" in data else None
    hint = r.text(f"{where}, hint", (*path, "hint"), data["hint"]) if "hint" in data else None
    question = data.get("question")
    params = {key: value for key, value in data.items() if key not in v.COMMON}
    if question is not None:
        params["question"] = r.text(f"{where}, question", (*path, "question"), question)
    if "wrong" in data:
        params["wrong"] = _read_wrong(r, f"{where}, wrong", (*path, "wrong"), data["wrong"])
    return Check(kind, params, message, data.get("negate") is True, where, r.doc.line_of(path), hint)


def _read_wrong(r: Reader, where: str, path: tuple, raw: object) -> tuple[tuple[tuple[str, ...], Text], ...]:
    """An answer check's known wrong answers, each with the hint that covers it."""
    if not isinstance(raw, list) or not raw:
        r.error(where, path, "wrong must be a non-empty list of {answers: [...], hint: {en, zh}}")
        return ()
    found = []
    for i, item in enumerate(raw):
        here = f"{where} {i + 1}"
        data = r.mapping(here, (*path, i), item, {"answers": v.TEXTS, "hint": v.TEXT}, {})
        if "answers" in data:
            r.typed(here, (*path, i, "answers"), data["answers"], v.TEXTS)
        if "answers" in data and "hint" in data and isinstance(data["answers"], list):
            hint = r.text(f"{here}, hint", (*path, i, "hint"), data["hint"])
            found.append((tuple(str(a) for a in data["answers"]), hint))
    return tuple(found)


def _read_solution(r: Reader, where: str, path: tuple, raw: object) -> Solution:
    data = r.mapping(where, path, raw, {}, SOLUTION_KEYS)
    apply = r.manifests(f"{where}, apply", (*path, "apply"), data["apply"]) if "apply" in data else ""
    commands = data.get("commands", [])
    if not isinstance(commands, list) or not all(isinstance(c, str) and c.strip() for c in commands):
        r.error(where, (*path, "commands"), "commands must be a list of console commands")
        commands = []
    answer = data.get("answer", "")
    if "answer" in data:
        r.typed(where, (*path, "answer"), answer, v.STR)
    reveal = data.get("revealAfter", DEFAULT_REVEAL_AFTER)
    if not isinstance(reveal, int) or isinstance(reveal, bool) or reveal < 0:
        r.error(where, (*path, "revealAfter"), "revealAfter must be a whole number of tries (0 or more)")
        reveal = DEFAULT_REVEAL_AFTER
    explanation = (
        r.text(f"{where}, explanation", (*path, "explanation"), data["explanation"])
        if "explanation" in data
        else None
    )
    return Solution(apply, tuple(c.strip() for c in commands), str(answer or ""), reveal, explanation)

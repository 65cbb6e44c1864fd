"""A loaded lab as value objects: what the loader returns and everything else reads."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang.startswith("zh") else self.en

    def as_dict(self) -> dict:
        return {"en": self.en, "zh": self.zh}


@dataclass(frozen=True, slots=True)
class Check:
    type: str
    params: dict
    message: Text | None
    negate: bool
    where: str  # "lab 'x', step 2 ('label-node'), check 1": for errors at run time
    line: int
    hint: Text | None = None  # shown with this check's failure (docs/labs.md "Hints")


@dataclass(frozen=True, slots=True)
class Solution:
    apply: str  # YAML manifests applied with the API server's apply (all or nothing)
    commands: tuple[str, ...]  # console (kubectl) commands, run in order after `apply`
    answer: str  # what a student types for the step's `answer` checks
    reveal_after: int  # failed attempts before the solution is offered to the student
    explanation: Text | None


@dataclass(frozen=True, slots=True)
class Step:
    id: str
    title: Text
    instructions: Text
    checks: tuple[Check, ...]
    hints: tuple[Text, ...]
    solution: Solution
    line: int

    @property
    def question_checks(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if check.type == "answer")


@dataclass(frozen=True, slots=True)
class Lab:
    id: str
    title: Text
    level: str
    minutes: int
    summary: Text | None
    pace_ms: int
    manifests: str
    steps: tuple[Step, ...]
    source: str = ""
    extra: dict = field(default_factory=dict)
    # When the board calls a student stuck on a step: this many wrong attempts, or this many
    # minutes on it (the lab file's `stuck`; the teacher may change them for a class).
    stuck_attempts: int = 3
    stuck_minutes: int = 5

    def step(self, step_id: str) -> Step | None:
        return next((step for step in self.steps if step.id == step_id), None)

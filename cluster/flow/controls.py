"""The flow controls' arguments (step mode, pace, next's trace), checked alike over HTTP and the
websocket: a value of the wrong type is refused with a message, never coerced (`"on": "yes"` must
not switch step mode on for the whole class).

A form-encoded HTTP body has no booleans or numbers, so there "true"/"false" and decimal digits
are read as the boolean and the integer they spell; a JSON body or a websocket frame must carry the
JSON type itself.
"""

from __future__ import annotations

import re

MAX_TRACE_ID = 16  # FlowTrace.id's length
_FORM_INTEGER = re.compile(r"-?[0-9]{1,9}", re.ASCII)


class BadControl(ValueError):
    """A flow control's argument of the wrong type; the message says what it must be."""


def step_mode_on(value: object, form: bool = False) -> bool:
    if isinstance(value, bool):
        return value
    if form and value in ("true", "false"):
        return value == "true"
    raise BadControl('"on" must be true or false')


def pace_ms(value: object, form: bool = False) -> int:
    if form and isinstance(value, str) and _FORM_INTEGER.fullmatch(value):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # the gate clamps it to 0..60,000 ms
    raise BadControl("pace_ms must be an integer number of milliseconds")


def trace_id(value: object) -> str | None:
    """The trace "next" releases; None (or "") for the newest unfinished one."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and len(value) <= MAX_TRACE_ID:
        return value
    raise BadControl("trace must be a trace id")

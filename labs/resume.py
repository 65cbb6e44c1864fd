"""Students come back: a resume link (a long secret) and a short code restore a student's session,
sandbox, kubeconfig and progress in any browser.

Both are issued at join and shown in the student's lab panel; the teacher may issue new ones from
the board (the old ones stop working). The link opens a page that asks before it signs the
browser in as the student (a link someone else sent must not silently swap a browser's class).
The short code is typed with the class code; wrong codes are limited as wrong class codes are.
"""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.urls import reverse

from labs.models import Student

# No 0/O, 1/I/L: read aloud or copied from a projector without mistakes.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def _code() -> str:
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalized(code: str) -> str:
    """What a student typed, as stored: upper case, the dash where it belongs, spaces ignored."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    return f"{raw[:4]}-{raw[4:]}" if len(raw) == CODE_LENGTH else raw


def issue(student: Student) -> Student:
    """Give the student a new resume link secret and code (the old ones stop working)."""
    for _ in range(5):
        student.resume_token = secrets.token_urlsafe(32)
        student.resume_code = _code()
        try:
            with transaction.atomic():
                student.save(update_fields=["resume_token", "resume_code"])
            return student
        except IntegrityError:  # an astronomically unlikely repeat of the secret: draw again
            continue
    raise RuntimeError("could not issue a resume link")


def ensure(student: Student) -> Student:
    """The student's resume link and code, issued now for one who joined before they existed."""
    return student if student.resume_token else issue(student)


def link(request, student: Student) -> str:
    return request.build_absolute_uri(reverse("labs:resume_link", args=[student.resume_token]))


def by_token(token: str) -> Student | None:
    if not token:
        return None
    return Student.objects.select_related("session", "sandbox", "user").filter(resume_token=token).first()


def by_code(class_code: str, code: str) -> Student | None:
    code = normalized(code)
    if not class_code or len(code) != CODE_LENGTH + 1:
        return None
    students = Student.objects.select_related("session", "sandbox", "user")
    return students.filter(session__code=class_code.strip().upper(), resume_code=code).first()

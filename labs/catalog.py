"""Lab definitions in the database, parsed once per version; bundled labs imported from disk.

Every saved change of a lab's text is a new version (LabVersion); a class session and each of its
students name the version they use, so editing a lab during a class changes nothing for them until
the teacher moves the class on (labs/versions.py)."""

from __future__ import annotations

import threading
from functools import cache

from django.db import IntegrityError, transaction

from labs.labmodel import Lab
from labs.loader import bundled_paths, load_lab
from labs.models import ClassSession, LabDefinition, LabVersion, Student

_lock = threading.Lock()
_parsed: dict[tuple[int, str], Lab] = {}
_versions: dict[tuple[int, int], Lab] = {}  # (definition, number): a version never changes


def lab_of(definition: LabDefinition) -> Lab:
    """The parsed lab for this row's current text (raises LabValidationError if it is invalid)."""
    key = (definition.pk, definition.updated_at.isoformat() if definition.updated_at else "")
    with _lock:
        lab = _parsed.get(key)
    if lab is None:
        lab = load_lab(definition.source, source=f"lab {definition.slug}")
        with _lock:
            _parsed[key] = lab
    return lab


def version_lab(definition: LabDefinition, number: int) -> Lab:
    """The parsed lab of one version (the newest is the definition's own text)."""
    if number == definition.version or number <= 0:
        return lab_of(definition)
    key = (definition.pk, number)
    with _lock:
        lab = _versions.get(key)
    if lab is None:
        stored = LabVersion.objects.filter(definition=definition, number=number).first()
        if stored is None:  # never: versions are not deleted while their lab exists
            return lab_of(definition)
        lab = load_lab(stored.source, source=f"lab {definition.slug} v{number}")
        with _lock:
            _versions[key] = lab
    return lab


_pinned: dict[tuple[str, int], Lab] = {}  # (lab id, version): a course plan's labs


def pinned_lab(slug: str, number: int) -> Lab:
    """Version `number` of the lab `slug`, as a course's plan names it (labs/courses.py)."""
    key = (slug, number)
    with _lock:
        lab = _pinned.get(key)
    if lab is None:
        stored = LabVersion.objects.select_related("definition").get(definition__slug=slug, number=number)
        lab = load_lab(stored.source, source=f"lab {slug} v{number}")
        with _lock:
            _pinned[key] = lab
    return lab


def lab_for(student: Student) -> Lab:
    """The lab as this student works on it: the version they started, or were moved to; in a
    course's class, the plan's lab the student is on."""
    plan = student.session.plan
    if plan:
        entry = plan[min(student.lab_position, len(plan) - 1)]
        return pinned_lab(entry["lab"], entry["version"])
    return version_lab(student.session.lab, student.lab_version)


def session_lab(session: ClassSession) -> Lab:
    """The lab as the class uses it (new students get this version); a course's class: the lab
    a student who joins now starts (labs.courses.start_position)."""
    if session.plan:
        entry = session.plan[start_position(session)]
        return pinned_lab(entry["lab"], entry["version"])
    return version_lab(session.lab, session.lab_version)


def start_position(session: ClassSession) -> int:
    """Where a student who joins a course's class now starts: the newest lab the teacher opened
    (the class is there), or the first lab at the students' own pace."""
    if session.pace == "teacher":
        return max(0, min(session.labs_open, len(session.plan)) - 1)
    return 0


def save_definition(definition: LabDefinition, source: str, user=None) -> Lab:
    """Validate `source` and store it on `definition` (slug and titles come from the file); a
    changed text of a stored lab is its next version, the old ones kept for their classes."""
    lab = load_lab(source)
    changed = definition.pk is None or definition.source != source
    if definition.pk is not None and changed:
        definition.version += 1
    definition.slug = lab.id
    definition.title_en, definition.title_zh = lab.title.en, lab.title.zh
    definition.source = source
    with transaction.atomic():
        definition.save()
        if changed:
            LabVersion.objects.create(
                definition=definition, number=definition.version, source=source, created_by=user
            )
    return lab


def import_bundled() -> list[LabDefinition]:
    """Create or refresh the bundled labs (published); instructors' own labs are left alone."""
    rows = []
    for path in bundled_paths():
        source = path.read_text(encoding="utf-8")
        lab = load_lab(source, source=str(path))
        row = LabDefinition.objects.filter(slug=lab.id).first()
        if row is None:
            row = LabDefinition(bundled=True, published=True)
            try:
                save_definition(row, source)  # its version 1
            except IntegrityError:  # another request imported it just now
                row = LabDefinition.objects.get(slug=lab.id)
        elif row.bundled and row.source != source:
            save_definition(row, source)  # a newer KubeSim's file: the lab's next version
        rows.append(row)
    return rows


def in_course_order(definitions) -> list[LabDefinition]:
    """The bundled labs in the course's order (their files are numbered 01–11), then the
    instructors' own labs by id."""
    order = _bundled_order()
    return sorted(definitions, key=lambda d: (order.get(d.slug, len(order)), d.slug))


@cache
def _bundled_order() -> dict[str, int]:
    """Lab id -> its place in the course (the bundled files do not change while serving)."""
    return {
        load_lab(path.read_text(encoding="utf-8"), source=str(path)).id: index
        for index, path in enumerate(bundled_paths())
    }

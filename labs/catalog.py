"""Lab definitions in the database, parsed once per version; bundled labs imported from disk."""

from __future__ import annotations

import threading
from functools import cache

from labs.labmodel import Lab
from labs.loader import bundled_paths, load_lab
from labs.models import LabDefinition

_lock = threading.Lock()
_parsed: dict[tuple[int, str], Lab] = {}


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


def save_definition(definition: LabDefinition, source: str) -> Lab:
    """Validate `source` and store it on `definition` (slug and titles come from the file)."""
    lab = load_lab(source)
    definition.slug = lab.id
    definition.title_en, definition.title_zh = lab.title.en, lab.title.zh
    definition.source = source
    definition.save()
    return lab


def import_bundled() -> list[LabDefinition]:
    """Create or refresh the bundled labs (published); instructors' own labs are left alone."""
    rows = []
    for path in bundled_paths():
        source = path.read_text(encoding="utf-8")
        lab = load_lab(source, source=str(path))
        row, _ = LabDefinition.objects.get_or_create(
            slug=lab.id, defaults={"bundled": True, "published": True}
        )
        if row.bundled and row.source != source:
            save_definition(row, source)
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

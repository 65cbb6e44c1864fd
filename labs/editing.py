"""The lab editor: new labs, new versions of a lab, imports that ask, bundled labs copied to edit.

Saving a changed lab stores its next version (labs.catalog.save_definition): classes keep theirs.
Nothing overwrites a lab: an imported file whose id exists becomes, as the teacher chooses, a new
version of that lab or a new lab under another id; the bundled labs are read-only (copy to edit);
an import stores nothing until Save.
"""

from __future__ import annotations

import re

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from labs.catalog import save_definition
from labs.loader import ID_PATTERN, load_lab
from labs.models import LabDefinition
from labs.teacher import errors_of

NEW_LAB = """id: my-lab
title: {en: "My lab", zh: "我的实验"}
level: beginner
minutes: 10
steps:
  - id: first
    title: {en: "First step", zh: "第一步"}
    instructions: {en: "Label node1 with zz=cxk.", zh: "给 node1 打上标签 zz=cxk。"}
    checks:
      - type: nodeLabel
        node: node1
        label: zz=cxk
    solution:
      commands: ["kubectl label nodes node1 zz=cxk"]
cluster:
  manifests: |
    apiVersion: v1
    kind: Node
    metadata: {name: node1}
    status:
      allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
"""

# The file's own top-level `id:` line (a lab file starts with it; see docs/labs.md).
_ID_LINE = re.compile(r"^id:[^\n]*$", re.MULTILINE)


def with_id(source: str, new_id: str) -> str | None:
    """The text with its top-level id changed (None: the file has no `id:` line to change)."""
    if not _ID_LINE.search(source):
        return None
    return _ID_LINE.sub(f"id: {new_id}", source, count=1)


def free_id(base: str) -> str:
    """`base`, or `base-2`, `base-3`…: an id no lab has (ids are at most 63 characters)."""
    base = base[:56].rstrip("-")
    taken = set(LabDefinition.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _problem(text: str) -> list[dict]:
    return [{"text": text, "line": None}]


def _editor(request, definition, source, errors=(), status=200, **extra) -> HttpResponse:
    context = {"definition": definition, "source": source, "errors": list(errors), **extra}
    return render(request, "labs/editor.html", context, status=400 if errors and status == 200 else status)


@staff_member_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    if slug is None:
        return _new(request)
    definition = get_object_or_404(LabDefinition, slug=slug)
    source = request.POST.get("source", definition.source)
    if request.method == "GET":
        return _editor(request, definition, source)
    if definition.bundled:
        error = _("The bundled labs are read-only: copy this lab to edit it.")
        return _editor(request, definition, definition.source, _problem(error), status=403)
    errors = errors_of(source)
    lab_id = None if errors else load_lab(source).id
    if lab_id and LabDefinition.objects.exclude(pk=definition.pk).filter(slug=lab_id).exists():
        errors = _problem(_("Another lab already has the id '%(id)s'.") % {"id": lab_id})
    if errors:
        return _editor(request, definition, source, errors)
    save_definition(definition, source, request.user)
    return redirect(reverse("labs:edit", args=[definition.slug]))


def _new(request: HttpRequest) -> HttpResponse:
    """A new lab; from an import, also a new version of the lab with the file's id (`save_as`)."""
    blank = LabDefinition(created_by=request.user)
    source = request.POST.get("source", NEW_LAB)
    if request.method == "GET":
        return _editor(request, blank, source)
    save_as = request.POST.get("save_as", "")
    if save_as == "new-lab":
        new_id = request.POST.get("new_id", "").strip()
        if not ID_PATTERN.match(new_id):
            error = _("The new lab's id must be lowercase letters, digits and '-' (at most 63).")
            return _import_editor(request, source, _problem(error))
        source = with_id(source, new_id) or source
    errors = errors_of(source)
    if errors:
        return _import_editor(request, source, errors) if save_as else _editor(request, blank, source, errors)
    lab_id = load_lab(source).id
    existing = LabDefinition.objects.filter(slug=lab_id).first()
    if existing is not None and save_as == "version" and not existing.bundled:
        save_definition(existing, source, request.user)
        return redirect(reverse("labs:edit", args=[existing.slug]))
    if existing is not None:  # never overwrite: the teacher chooses a new version or a new id
        error = _("Another lab already has the id '%(id)s'.") % {"id": lab_id}
        return (
            _import_editor(request, source, _problem(error))
            if save_as
            else _editor(request, blank, source, _problem(error))
        )
    save_definition(blank, source, request.user)
    return redirect(reverse("labs:edit", args=[blank.slug]))


def _import_editor(request: HttpRequest, source: str, errors=()) -> HttpResponse:
    """The editor with an imported text: it says nothing is stored until Save, and when a lab
    has the file's id, asks whether Save makes a new version of it or a new lab."""
    existing = None
    if not errors_of(source):
        existing = LabDefinition.objects.filter(slug=load_lab(source).id).first()
    extra = {
        "imported": True,
        "existing": existing,
        "suggested_id": free_id(existing.slug) if existing else "",
        "save_as": "new-lab" if existing is not None and existing.bundled else "version",
    }
    return _editor(request, LabDefinition(created_by=request.user), source, errors, **extra)


@staff_member_required
@require_POST
def import_lab(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    source = upload.read().decode("utf-8", "replace") if upload else request.POST.get("source", "")
    return _import_editor(request, source, errors_of(source))


@staff_member_required
@require_POST
def copy_lab(request: HttpRequest, slug: str) -> HttpResponse:
    """A copy of a lab under a new id, unpublished, to edit (how a bundled lab is changed)."""
    definition = get_object_or_404(LabDefinition, slug=slug)
    new_id = free_id(f"{definition.slug}-copy")
    source = with_id(definition.source, new_id)
    if source is None:
        error = _("This lab's file has no top-level 'id:' line to change.")
        return _editor(request, definition, definition.source, _problem(error))
    copy = LabDefinition(created_by=request.user, published=False)
    save_definition(copy, source, request.user)
    return redirect(reverse("labs:edit", args=[copy.slug]))

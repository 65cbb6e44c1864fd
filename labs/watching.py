"""The teacher's views of a class's records: the progress export (JSON, CSV) and one student's
sandbox, read-only, with their progress and last console commands beside it."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from dashboard import history
from dashboard.views import page_context
from labs.export import progress_csv, progress_export
from labs.models import ClassSession, Student
from labs.state import board_state
from labs.teacher import session_or_404, student_or_404


@staff_member_required
@require_GET
def export_progress(request: HttpRequest, code: str, fmt: str) -> HttpResponse:
    """The class's progress and attempts as a file: `json`, or `csv` (one row per student and step)."""
    session = session_or_404(request, code)
    if fmt not in ("json", "csv"):
        raise Http404("Export as .json or .csv.")
    data = progress_export(session)
    name = f"{session.code}-{data['lab']['id']}-progress"
    if fmt == "json":
        response = JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 1})
    else:
        language = "zh" if (request.LANGUAGE_CODE or "").startswith("zh") else "en"
        # The byte-order mark makes spreadsheets read the file (Chinese titles, names) as UTF-8.
        text = "\ufeff" + progress_csv(data, language)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


def _watch_state(session: ClassSession, student: Student) -> dict:
    exported = progress_export(session, student.pk)["students"]
    board = board_state(session, student.pk)["students"]
    cluster = student.sandbox
    return {
        "student": board[0] if board else None,
        "steps": exported[0]["steps"] if exported else [],
        "commands": history.recent(cluster) if cluster else [],
    }


@staff_member_required
@require_GET
def watch_student(request: HttpRequest, code: str, student_id: int) -> HttpResponse:
    """The student's sandbox, read-only, with their progress and last console commands beside it."""
    session = session_or_404(request, code)
    student = student_or_404(session, student_id)
    if student.sandbox is None:
        return redirect(reverse("labs:board", args=[session.code]))
    context = page_context(request, student.sandbox)
    # This page never writes: the dashboard disables its writing controls and shows no demo note.
    context["boot"]["access"].update({"may_write": False, "always": False, "public": False})
    context.update({"may_write": False, "writes_always": True, "student": student, "session": session})
    return render(request, "labs/watch.html", context)


@staff_member_required
@require_GET
def watch_json(request: HttpRequest, code: str, student_id: int) -> JsonResponse:
    session = session_or_404(request, code)
    return JsonResponse(_watch_state(session, student_or_404(session, student_id)))

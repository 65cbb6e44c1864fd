"""Instructors (staff): write and publish labs, run class sessions, watch and help the class."""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from labs import resume, sandbox, versions
from labs.catalog import import_bundled, in_course_order, lab_for, lab_of
from labs.loader import LabValidationError, load_lab
from labs.models import ClassSession, Course, LabDefinition, StepProgress, Student
from labs.progress import announce_students, notify, session_group
from labs.selftest import self_test
from labs.state import board_state


def errors_of(text: str) -> list[dict]:
    try:
        load_lab(text)
    except LabValidationError as exc:
        return [error.as_dict() for error in exc.errors]
    return []


@staff_member_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    # The bundled labs, on the first visit (a teacher may have written a lab of their own first).
    if not LabDefinition.objects.filter(bundled=True).exists():
        import_bundled()
    context = {
        "labs": in_course_order(LabDefinition.objects.all()),
        "courses": Course.objects.all(),
        "sessions": ClassSession.objects.filter(teacher=request.user).select_related("lab", "course")[:20],
    }
    return render(request, "labs/manage.html", context)


@staff_member_required
@require_POST
def validate(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"errors": errors_of(request.body.decode("utf-8", "replace"))})


@staff_member_required
@require_POST
def test_lab(request: HttpRequest) -> JsonResponse:
    """The "Test lab" button: the checklab self-test of the text in the editor."""
    text = request.body.decode("utf-8", "replace")
    errors = errors_of(text)
    if errors:
        return JsonResponse({"ok": False, "errors": errors})
    report = self_test(load_lab(text))
    return JsonResponse(
        {"ok": report.ok, "steps_passed": report.steps_passed, "errors": [e.as_dict() for e in report.errors]}
    )


@staff_member_required
@require_GET
def export(request: HttpRequest, slug: str) -> HttpResponse:
    definition = get_object_or_404(LabDefinition, slug=slug)
    response = HttpResponse(definition.source, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{definition.slug}.yaml"'
    return response


@staff_member_required
@require_POST
def publish(request: HttpRequest, slug: str) -> HttpResponse:
    definition = get_object_or_404(LabDefinition, slug=slug)
    definition.published = request.POST.get("published") == "1"
    definition.save(update_fields=["published", "updated_at"])
    return redirect(reverse("labs:manage"))


@staff_member_required
@require_POST
def open_session(request: HttpRequest) -> HttpResponse:
    definition = get_object_or_404(LabDefinition, slug=request.POST.get("lab", ""), published=True)
    lab_of(definition)  # refuse to open a session on a lab that no longer validates
    session = ClassSession.objects.create(
        lab=definition, teacher=request.user, lab_version=definition.version
    )
    return redirect(reverse("labs:board", args=[session.code]))


def session_or_404(request: HttpRequest, code: str) -> ClassSession:
    return get_object_or_404(ClassSession.objects.select_related("lab"), code=code)


@staff_member_required
@require_GET
def board(request: HttpRequest, code: str) -> HttpResponse:
    session = session_or_404(request, code)
    join_url = request.build_absolute_uri(reverse("labs:join")) + f"?code={session.code}"
    return render(request, "labs/board.html", {"session": session, "join_url": join_url})


@staff_member_required
@require_GET
def board_json(request: HttpRequest, code: str) -> JsonResponse:
    return JsonResponse(board_state(session_or_404(request, code)))


def _text(request: HttpRequest) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        data = {}
    data = data if isinstance(data, dict) else {}
    en, zh = str(data.get("en", ""))[:1000].strip(), str(data.get("zh", ""))[:1000].strip()
    return {"en": en or zh, "zh": zh or en, "at": timezone.now().isoformat(), "student": data.get("student")}


@staff_member_required
@require_POST
def push_hint(request: HttpRequest, code: str) -> JsonResponse:
    """A hint for one student ({"student": id}) or for the whole class."""
    session = session_or_404(request, code)
    hint = _text(request)
    target = hint.pop("student")
    if not hint["en"]:
        return JsonResponse({"error": "Write the hint first."}, status=400)
    students = session.students.all() if target in (None, "", "all") else session.students.filter(pk=target)
    if target in (None, "", "all"):
        session.class_hint = hint
        session.save(update_fields=["class_hint"])
    else:
        students.update(pushed_hint=hint)
    for student in students:
        notify(student)
    return JsonResponse({"sent": len(students)})


def student_or_404(session: ClassSession, student_id: int) -> Student:
    return get_object_or_404(
        Student.objects.select_related("sandbox", "session__lab"), session=session, pk=student_id
    )


@staff_member_required
@require_POST
def reset_student(request: HttpRequest, code: str, student_id: int) -> JsonResponse:
    session = session_or_404(request, code)
    student = student_or_404(session, student_id)
    sandbox.reset(student, lab_for(student))
    notify(student)
    return JsonResponse({"reset": student.display_name})


@staff_member_required
@require_POST
def remove_student(request: HttpRequest, code: str, student_id: int) -> JsonResponse:
    """The student leaves the class: their sandbox and its control plane go."""
    session = session_or_404(request, code)
    student = student_or_404(session, student_id)
    name = student.display_name
    sandbox.remove(student)
    announce_students(session)
    return JsonResponse({"removed": name})


@staff_member_required
@require_POST
def reissue_resume(request: HttpRequest, code: str, student_id: int) -> JsonResponse:
    """A new resume link and code for a student who lost theirs (the old ones stop working)."""
    student = resume.issue(student_or_404(session_or_404(request, code), student_id))
    return JsonResponse(
        {"name": student.display_name, "url": resume.link(request, student), "code": student.resume_code}
    )


@staff_member_required
@require_POST
def reveal_solution(request: HttpRequest, code: str, student_id: int) -> JsonResponse:
    session = session_or_404(request, code)
    student = student_or_404(session, student_id)
    lab = lab_for(student)
    if student.current_step < len(lab.steps):
        step = lab.steps[student.current_step]
        StepProgress.objects.filter(student=student, step_id=step.id).update(solution_revealed=True)
    notify(student)
    return JsonResponse({"revealed": student.display_name})


@staff_member_required
@require_POST
def stuck_rule(request: HttpRequest, code: str) -> JsonResponse:
    """The teacher's "stuck" thresholds for the class ({"attempts": N, "minutes": M}; a missing or
    empty value goes back to the lab's)."""
    session = session_or_404(request, code)
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict):
        return JsonResponse({"error": "Send a JSON object."}, status=400)
    chosen = {}
    for key in ("attempts", "minutes"):
        value = data.get(key)
        if value in (None, ""):
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
            return JsonResponse({"error": f"{key} must be a whole number from 1 to 1000."}, status=400)
        chosen[key] = value
    session.stuck = chosen
    session.save(update_fields=["stuck"])
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(session_group(session.pk), {"type": "lab.changed"})
    return JsonResponse({"stuck": chosen})


@staff_member_required
@require_POST
def move_class(request: HttpRequest, code: str) -> JsonResponse:
    """Move the class to the lab's newest version (labs/versions.py); the steps it drops, named."""
    session = session_or_404(request, code)
    lab_of(session.lab)  # the newest version validates (it was saved through the loader)
    return JsonResponse(versions.move_class(session).as_dict())


@staff_member_required
@require_POST
def close_session(request: HttpRequest, code: str) -> HttpResponse:
    session = session_or_404(request, code)
    session.is_open = request.POST.get("open") == "1"
    session.save(update_fields=["is_open"])
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(session_group(session.pk), {"type": "lab.changed"})
    return redirect(reverse("labs:board", args=[session.code]))

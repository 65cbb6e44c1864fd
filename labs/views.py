"""Students: join with the class code and a display name, then work in their sandbox.

The student's page is the dashboard (G's template and boot data) for their sandbox, with the lab
panel beside it. Every endpoint finds the student from the logged-in throwaway user, so a student
can only ever reach their own progress and sandbox.
"""

from __future__ import annotations

import json

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.views import page_context
from labs import courses, resume, sandbox
from labs.catalog import lab_for, session_lab
from labs.joinlimits import join_wait, remember_browser, resume_wait
from labs.models import ClassSession, Student
from labs.progress import announce_students, evaluate
from labs.review import step_review
from labs.state import student_state

MAX_ANSWER = 500


def current_student(request: HttpRequest) -> Student | None:
    if not request.user.is_authenticated:
        return None
    return Student.objects.select_related("session__lab", "sandbox").filter(user=request.user).first()


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    error = ""
    code = request.POST.get("code", request.GET.get("code", "")).strip().upper()
    name = request.POST.get("name", "")
    if request.method == "POST":
        already = current_student(request)
        if already is not None and request.POST.get("confirm") != "1":
            # This browser is a student already: joining again would leave that sandbox behind.
            context = {"code": code, "name": name, "already": already}
            return remember_browser(request, render(request, "labs/join.html", context, status=409))
        session = ClassSession.objects.select_related("lab").filter(code=code).first()
        wait = join_wait(request, code, session is not None)
        if wait:
            response = render(
                request,
                "labs/join.html",
                {"error": _("Too many attempts; wait a minute and try again."), "code": code, "name": name},
                status=429,
            )
            response["Retry-After"] = str(wait)
            return remember_browser(request, response)
        if request.user.is_authenticated and request.user.is_staff:
            error = _("You are signed in as an instructor: join from a private window.")
        elif session is None:
            error = _("No class session has this code.")
        else:
            try:
                student = sandbox.join(session, name, session_lab(session))
            except sandbox.JoinError as exc:
                error = str(exc)
            else:
                login(request, student.user, backend="django.contrib.auth.backends.ModelBackend")
                announce_students(session)
                return redirect(reverse("labs:student"))
    response = render(
        request, "labs/join.html", {"error": error, "code": code, "name": name}, status=400 if error else 200
    )
    return remember_browser(request, response)


@require_GET
@ensure_csrf_cookie
def student_page(request: HttpRequest) -> HttpResponse:
    student = current_student(request)
    if student is None or student.sandbox is None:
        return redirect(reverse("labs:join"))
    resume.ensure(student)
    context = {
        **page_context(request, student.sandbox),
        "student": student,
        "resume_url": resume.link(request, student),
    }
    return render(request, "labs/student.html", context)


def _sign_in(request: HttpRequest, student: Student) -> HttpResponse | None:
    """Sign this browser in as the student (None: refused, an instructor's browser)."""
    if request.user.is_authenticated and request.user.is_staff:
        return None
    login(request, student.user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(reverse("labs:student"))


INSTRUCTOR_BROWSER = _lazy("You are signed in as an instructor: use a private window.")


@require_http_methods(["GET", "POST"])
def resume_link(request: HttpRequest, token: str) -> HttpResponse:
    """The resume link: it asks first, then signs the browser in as its student."""
    student = resume.by_token(token)
    if student is None or student.sandbox is None:
        error = _("This resume link is not valid: your teacher may have issued a new one.")
        return render(request, "labs/resume.html", {"error": error, "form": True}, status=404)
    if request.method == "POST":
        signed_in = _sign_in(request, student)
        if signed_in is not None:
            return signed_in
        return render(
            request, "labs/resume.html", {"error": INSTRUCTOR_BROWSER, "student": student}, status=400
        )
    current = current_student(request)
    context = {"student": student, "already": current if current and current.pk != student.pk else None}
    return render(request, "labs/resume.html", context)


@require_http_methods(["GET", "POST"])
def resume_form(request: HttpRequest) -> HttpResponse:
    """Come back with the class code and the short resume code."""
    code = request.POST.get("code", request.GET.get("code", "")).strip().upper()
    typed = request.POST.get("resume_code", "")
    error = ""
    if request.method == "POST":
        wait = resume_wait(request)
        if wait:
            error = _("Too many attempts; wait a minute and try again.")
            context = {"error": error, "form": True, "code": code, "resume_code": typed}
            response = render(request, "labs/resume.html", context, status=429)
            response["Retry-After"] = str(wait)
            return remember_browser(request, response)
        student = resume.by_code(code, typed)
        if student is None or student.sandbox is None:
            error = _("No student of this class has that resume code.")
        else:
            signed_in = _sign_in(request, student)
            if signed_in is not None:
                return signed_in
            error = INSTRUCTOR_BROWSER
    context = {"error": error, "form": True, "code": code, "resume_code": typed}
    response = render(request, "labs/resume.html", context, status=400 if error else 200)
    return remember_browser(request, response)


def _student_or_403(request: HttpRequest) -> Student | JsonResponse:
    student = current_student(request)
    if student is None:
        return JsonResponse({"error": _("Join a class first.")}, status=403)
    return student


@require_GET
def state(request: HttpRequest) -> JsonResponse:
    student = _student_or_403(request)
    if isinstance(student, JsonResponse):
        return student
    evaluate(student)
    return JsonResponse(student_state(student))


def _body(request: HttpRequest) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


@require_POST
def answer(request: HttpRequest) -> JsonResponse:
    student = _student_or_403(request)
    if isinstance(student, JsonResponse):
        return student
    text = str(_body(request).get("answer", ""))[:MAX_ANSWER].strip()
    lab = lab_for(student)
    if student.current_step < len(lab.steps):
        step = lab.steps[student.current_step]
        student.progress.filter(step_id=step.id).update(answer=text)
        evaluate(student, explicit=True)
    return JsonResponse(student_state(student))


@require_POST
def hint(request: HttpRequest) -> JsonResponse:
    """Reveal the current step's next hint."""
    student = _student_or_403(request)
    if isinstance(student, JsonResponse):
        return student
    lab = lab_for(student)
    if student.current_step < len(lab.steps):
        step = lab.steps[student.current_step]
        progress = student.progress.filter(step_id=step.id).first()
        if progress is not None and progress.hints_shown < len(step.hints):
            progress.hints_shown += 1
            progress.save(update_fields=["hints_shown"])
    return JsonResponse(student_state(student))


@require_POST
def next_lab(request: HttpRequest) -> JsonResponse:
    """Go on to the course's next lab (409 with the reason when it is not the time)."""
    student = _student_or_403(request)
    if isinstance(student, JsonResponse):
        return student
    try:
        courses.go_on(student)
    except courses.CourseError as exc:
        return JsonResponse({"error": str(exc)}, status=409)
    return JsonResponse(student_state(student))


@require_GET
def review(request: HttpRequest, position: int, index: int) -> JsonResponse:
    """An earlier step of this lab or of a course's earlier lab, and what the student did there."""
    student = _student_or_403(request)
    if isinstance(student, JsonResponse):
        return student
    found = step_review(student, position, index)
    if found is None:
        return JsonResponse({"error": _("You have not reached that step.")}, status=404)
    return JsonResponse(found)

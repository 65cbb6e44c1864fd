"""The teacher's courses on /labs/manage/: create and edit them (labs in order, the pace), open a
class on one, and open its next lab for everyone from the board (labs/courses.py)."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from labs import courses
from labs.catalog import in_course_order
from labs.models import Course, LabDefinition
from labs.progress import session_group
from labs.teacher import session_or_404


def _form(request: HttpRequest, course: Course | None) -> courses.CourseForm:
    return courses.CourseForm(
        slug=course.slug if course else request.POST.get("id", "").strip(),
        title_en=request.POST.get("title_en", ""),
        title_zh=request.POST.get("title_zh", ""),
        labs=[slug.strip() for slug in request.POST.getlist("labs") if slug.strip()],
        pace=request.POST.get("pace", ""),
    )


def _page(request, course, form, errors=(), status=200) -> HttpResponse:
    published = in_course_order(LabDefinition.objects.filter(published=True))
    field_errors = {e.field: e.text for e in errors}
    titles = {d.slug: d for d in LabDefinition.objects.filter(slug__in=form.labs)}
    context = {
        "course": course,
        "form": form,
        "chosen": [
            (slug, titles.get(slug), field_errors.get(f"labs[{i}]")) for i, slug in enumerate(form.labs)
        ],
        "published": published,
        "errors": [e.as_dict() for e in errors],
        "field_errors": {key.replace(".", "_"): text for key, text in field_errors.items()},
    }
    return render(request, "labs/course.html", context, status=status)


@staff_member_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    """A new course, or the next version of one (classes keep the plan they opened with)."""
    course = get_object_or_404(Course, slug=slug) if slug else None
    if request.method == "GET":
        if course is None:
            form = courses.CourseForm("", "", "", [], "teacher")
        else:
            form = courses.CourseForm(
                course.slug, course.title_en, course.title_zh, list(course.labs), course.pace
            )
        return _page(request, course, form)
    form = _form(request, course)
    errors = courses.validate(form, course)
    if errors:
        return _page(request, course, form, errors, status=400)
    course = courses.save(form, course, request.user)
    return redirect(reverse("labs:edit_course", args=[course.slug]) + "?saved=1")


@staff_member_required
@require_POST
def open_class(request: HttpRequest, slug: str) -> HttpResponse:
    course = get_object_or_404(Course, slug=slug)
    try:
        session = courses.open_class(course, request.user)
    except courses.CourseError as exc:
        form = courses.CourseForm(
            course.slug, course.title_en, course.title_zh, list(course.labs), course.pace
        )
        return _page(request, course, form, [courses.FieldError("labs", str(exc))], status=409)
    return redirect(reverse("labs:board", args=[session.code]))


@staff_member_required
@require_POST
def open_next(request: HttpRequest, code: str) -> JsonResponse:
    """The board's "Open next lab for everyone"."""
    session = session_or_404(request, code)
    try:
        opened = courses.open_next(session)
    except courses.CourseError as exc:
        return JsonResponse({"error": str(exc)}, status=409)
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(session_group(session.pk), {"type": "lab.changed"})
    return JsonResponse(opened)

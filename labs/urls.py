"""Labs routes: students under /join and /lab/, instructors under /labs/manage/."""

from __future__ import annotations

from django.urls import path

from labs import courseviews, editing, teacher, views, watching

app_name = "labs"

urlpatterns = [
    path("join/", views.join, name="join"),
    path("resume/", views.resume_form, name="resume"),
    path("resume/<str:token>", views.resume_link, name="resume_link"),
    path("lab/", views.student_page, name="student"),
    path("lab/state", views.state, name="state"),
    path("lab/answer", views.answer, name="answer"),
    path("lab/hint", views.hint, name="hint"),
    path("lab/next", views.next_lab, name="next_lab"),
    path("lab/review/<int:position>/<int:index>", views.review, name="review"),
    path("labs/manage/", teacher.home, name="manage"),
    path("labs/manage/new", editing.edit, name="new"),
    path("labs/manage/validate", teacher.validate, name="validate"),
    path("labs/manage/test", teacher.test_lab, name="test"),
    path("labs/manage/import", editing.import_lab, name="import"),
    path("labs/manage/sessions/new", teacher.open_session, name="open_session"),
    path("labs/manage/courses/new", courseviews.edit, name="new_course"),
    path("labs/manage/courses/<slug:slug>/", courseviews.edit, name="edit_course"),
    path("labs/manage/courses/<slug:slug>/open", courseviews.open_class, name="open_course"),
    path("labs/manage/sessions/<str:code>/open-next", courseviews.open_next, name="open_next"),
    path("labs/manage/sessions/<str:code>/", teacher.board, name="board"),
    path("labs/manage/sessions/<str:code>/board.json", teacher.board_json, name="board_json"),
    path(
        "labs/manage/sessions/<str:code>/progress.<str:fmt>", watching.export_progress, name="export_progress"
    ),
    path("labs/manage/sessions/<str:code>/hint", teacher.push_hint, name="push_hint"),
    path("labs/manage/sessions/<str:code>/close", teacher.close_session, name="close_session"),
    path("labs/manage/sessions/<str:code>/stuck", teacher.stuck_rule, name="stuck_rule"),
    path("labs/manage/sessions/<str:code>/move", teacher.move_class, name="move_class"),
    path("labs/manage/sessions/<str:code>/students/<int:student_id>/", watching.watch_student, name="watch"),
    path(
        "labs/manage/sessions/<str:code>/students/<int:student_id>/watch.json",
        watching.watch_json,
        name="watch_json",
    ),
    path(
        "labs/manage/sessions/<str:code>/students/<int:student_id>/reset", teacher.reset_student, name="reset"
    ),
    path(
        "labs/manage/sessions/<str:code>/students/<int:student_id>/remove",
        teacher.remove_student,
        name="remove",
    ),
    path(
        "labs/manage/sessions/<str:code>/students/<int:student_id>/resume",
        teacher.reissue_resume,
        name="reissue_resume",
    ),
    path(
        "labs/manage/sessions/<str:code>/students/<int:student_id>/reveal",
        teacher.reveal_solution,
        name="reveal",
    ),
    path("labs/manage/<slug:slug>/", editing.edit, name="edit"),
    path("labs/manage/<slug:slug>/export", teacher.export, name="export"),
    path("labs/manage/<slug:slug>/copy", editing.copy_lab, name="copy"),
    path("labs/manage/<slug:slug>/publish", teacher.publish, name="publish"),
]

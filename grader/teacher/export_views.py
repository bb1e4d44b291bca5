"""Downloads of grades (posts, so they carry the CSRF token like every other teacher action): an assignment's CSV
files, readable by default or machine-readable with ``ids=1``, and the course's .xlsx gradebook."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, abort, request, stream_with_context
from sqlalchemy.orm import Session

from grader.extensions import get_db, get_session
from grader.grading.access import Action
from grader.models import Assignment
from grader.teacher import exports, readable_exports
from grader.teacher.access import assignment_or_404, course_or_404, teacher_required
from grader.teacher.gradebook_xlsx import gradebook_xlsx
from grader.ui.page_helpers import page_lang, signed_in
from grader.ui.routes import Routes

EXPORTS: dict[str, Callable[[Session, Assignment], Iterator[list[Any]]]] = {
    "grades": exports.grades_rows,
    "submissions": exports.submissions_rows,
    "misconceptions": exports.misconception_rows,
}
# The files people open; the misconception table already names its tags in both languages, so it has one form.
READABLE: dict[str, Callable[[Session, Assignment, str], Iterator[list[Any]]]] = {
    "grades": readable_exports.readable_grades_rows,
    "submissions": readable_exports.readable_submissions_rows,
}
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


routes = Routes()


@routes.post("/assignments/<int:assignment_id>/export/<kind>.csv")
@teacher_required
def export(assignment_id: int, kind: str) -> Response:
    """Stream one of the CSV exports as a download (UTF-8 with BOM, so Excel and WPS read Chinese names)."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id, Action.EXPORT)
    if kind not in EXPORTS:
        abort(404)
    machine = request.values.get("ids") == "1" or kind not in READABLE
    return download(
        stream_with_context(_csv_stream(kind, found.id, None if machine else page_lang())),
        "text/csv; charset=utf-8",
        exports.filename(found, kind),
    )


@routes.post("/courses/<int:course_id>/gradebook.xlsx")
@teacher_required
def gradebook(course_id: int) -> Response:
    """The course's gradebook workbook in the page's language."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.EXPORT)
    return download(gradebook_xlsx(get_session(), course, page_lang()), XLSX, f"course-{course.id}-gradebook.xlsx")


def download(body: Any, mimetype: str, name: str) -> Response:
    """A response the browser saves as ``name`` and never caches (grades are personal data)."""
    return Response(
        body,
        content_type=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
    )


def _csv_stream(kind: str, assignment_id: int, lang: str | None) -> Iterator[str]:
    """A byte-order mark, then the CSV lines (readable in ``lang``, or machine-readable for None), read in a
    session of the stream's own.

    The request's session ends with the request, before the body is streamed; a session owned by the generator
    lives exactly as long as the stream (and closes if the client goes away mid-download).
    """
    with get_db().session() as session:
        assignment = session.get_one(Assignment, assignment_id)
        rows = EXPORTS[kind](session, assignment) if lang is None else READABLE[kind](session, assignment, lang)
        yield "\ufeff"
        yield from exports.csv_lines(rows)

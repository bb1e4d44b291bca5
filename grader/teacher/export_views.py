"""CSV downloads of an assignment (posts, so they carry the CSRF token like every other teacher action)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, abort, stream_with_context
from sqlalchemy.orm import Session

from grader.extensions import get_db, get_session
from grader.models import Assignment
from grader.teacher import exports
from grader.teacher.access import assignment_or_404, teacher_required
from grader.ui.page_helpers import signed_in
from grader.ui.routes import Routes

EXPORTS: dict[str, Callable[[Session, Assignment], Iterator[list[Any]]]] = {
    "grades": exports.grades_rows,
    "submissions": exports.submissions_rows,
    "misconceptions": exports.misconception_rows,
}


routes = Routes()


@routes.post("/assignments/<int:assignment_id>/export/<kind>.csv")
@teacher_required
def export(assignment_id: int, kind: str) -> Response:
    """Stream one of the CSV exports as a download (UTF-8 with BOM, so spreadsheets read Chinese names)."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id)
    if kind not in EXPORTS:
        abort(404)
    return Response(
        stream_with_context(_csv_stream(kind, found.id)),
        mimetype="text/csv",
        headers={
            "Content-Disposition": f'attachment; filename="{exports.filename(found, kind)}"',
            "Cache-Control": "no-store",
        },
    )


def _csv_stream(kind: str, assignment_id: int) -> Iterator[str]:
    """A byte-order mark, then the CSV lines, read in a session of the stream's own.

    The request's session ends with the request, before the body is streamed; a session owned by the generator
    lives exactly as long as the stream (and closes if the client goes away mid-download).
    """
    with get_db().session() as session:
        assignment = session.get_one(Assignment, assignment_id)
        yield "\ufeff"
        yield from exports.csv_lines(EXPORTS[kind](session, assignment))

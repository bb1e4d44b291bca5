"""The course gradebook page: every student × assignment in points and percent, searchable, sortable, paged."""

from __future__ import annotations

from flask import request
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.teacher.access import course_or_404, teacher_required
from grader.teacher.course_gradebook import NAME_SORT, course_gradebook
from grader.ui.page_helpers import render, signed_in
from grader.ui.routes import Routes

routes = Routes()


@routes.get("/courses/<int:course_id>/gradebook")
@teacher_required
def course_gradebook_page(course_id: int) -> ResponseReturnValue:
    """One page of the gradebook: ?q= searches username and name, ?sort= name, total or a<assignment id>, ?desc=1
    reverses it, ?page= (not a number: the first page; past the last: the last)."""
    course = course_or_404(get_session(), signed_in(), course_id)
    book = course_gradebook(
        get_session(),
        course,
        request.args.get("q", ""),
        request.args.get("sort", NAME_SORT),
        request.args.get("desc") == "1",
        request.args.get("page", default=1, type=int) or 1,
    )
    return render("teach/course_gradebook.html", course=course, book=book)

"""The assignment dashboard and one student's submissions."""

from __future__ import annotations

from flask import request
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.teacher.access import assignment_or_404, course_or_404, teacher_required
from grader.teacher.dashboard_data import assignment_page, student_page
from grader.teacher.paging import clean_search
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()


@routes.get("/assignments/<int:assignment_id>")
@teacher_required
def assignment(assignment_id: int) -> ResponseReturnValue:
    """Per exercise: statistics, score histogram, misconception histogram; per student: progress; exports; regrade."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id)
    number = request.args.get("page", default=1, type=int)  # not a number: the first page
    shown = assignment_page(get_session(), found, page_lang(), number, clean_search(request.args.get("q")))
    return render("teach/assignment.html", page=shown, course=found.course)


@routes.get("/courses/<int:course_id>/students/<int:user_id>")
@teacher_required
def student(course_id: int, user_id: int) -> ResponseReturnValue:
    """One student's submissions in the course, newest first, with the feedback they received."""
    course = course_or_404(get_session(), signed_in(), course_id)
    return render("teach/student.html", page=student_page(get_session(), course, user_id, page_lang()), course=course)

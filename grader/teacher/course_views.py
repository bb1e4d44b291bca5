"""Teacher home (courses taught, create a course) and the course dashboard."""
from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.teacher.access import course_or_404, taught_courses, teacher_required
from grader.teacher.blueprint import teacher
from grader.teacher.pages import course_page
from grader.teacher.roster import course_form_errors, create_course, student_counts
from grader.teacher.strings import tt
from grader.web.pages import page_lang, render, signed_in


def _home(status: int = 200, errors: list[str] | None = None, code: str = "", title: str = "") -> ResponseReturnValue:
    """The courses-I-teach page, optionally with the create form's errors."""
    courses = taught_courses(get_session(), signed_in())
    counts = student_counts(get_session(), [c.id for c in courses])
    return render("teach/home.html", status, courses=courses, counts=counts, errors=errors or [], code=code, title=title)


@teacher.get("/")
@teacher_required
def home() -> ResponseReturnValue:
    """Courses the signed-in teacher teaches, and a form to create one."""
    return _home()


@teacher.post("/courses")
@teacher_required
def new_course() -> ResponseReturnValue:
    """Create a course with the signed-in teacher as its teacher."""
    code, title = request.form.get("code", "").strip(), request.form.get("title", "").strip()
    errors = course_form_errors(get_session(), code, title)
    if errors:
        return _home(422, errors, code, title)
    course = create_course(get_session(), signed_in(), code, title)
    if course is None:  # created by another request since the check above
        return _home(422, ["course.code_taken"], code, title)
    flash(tt("course.created", page_lang()))
    return redirect(url_for("teacher.course", course_id=course.id))


@teacher.get("/courses/<int:course_id>")
@teacher_required
def course(course_id: int) -> ResponseReturnValue:
    """The course dashboard: statistics and histogram per assignment, progress per student."""
    found = course_or_404(get_session(), signed_in(), course_id)
    return render("teach/course.html", page=course_page(get_session(), found, page_lang()), course=found)

"""Teacher home (courses taught, create a course) and the course dashboard."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.courses.roster import course_form_errors, create_course, student_counts
from grader.extensions import get_session
from grader.i18n import t
from grader.models.courses import DEFAULT_TIME_ZONE
from grader.teacher.access import course_or_404, taught_courses, teacher_required
from grader.teacher.dashboard_data import course_page
from grader.teacher.paging import clean_search
from grader.teacher.zones import COMMON_TIME_ZONES, SUGGESTED_TIME_ZONE, known_zone
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes


def _home(
    status: int = 200,
    errors: list[str] | None = None,
    code: str = "",
    title: str = "",
    time_zone: str = SUGGESTED_TIME_ZONE,
) -> ResponseReturnValue:
    """The courses-I-teach page (archived ones listed apart), optionally with the create form's errors."""
    courses = taught_courses(get_session(), signed_in())
    counts = student_counts(get_session(), [c.id for c in courses])
    return render(
        "teach/home.html",
        status,
        courses=[c for c in courses if not c.archived],
        archived=[c for c in courses if c.archived],
        counts=counts,
        errors=errors or [],
        code=code,
        title=title,
        time_zone=time_zone,
        zones=COMMON_TIME_ZONES,
    )


routes = Routes()


@routes.get("/")
@teacher_required
def home() -> ResponseReturnValue:
    """Courses the signed-in teacher teaches, and a form to create one."""
    return _home()


@routes.post("/courses")
@teacher_required
def new_course() -> ResponseReturnValue:
    """Create a course with the signed-in teacher as its teacher, in the time zone chosen (UTC if none is sent)."""
    code, title = request.form.get("code", "").strip(), request.form.get("title", "").strip()
    typed_zone = request.form.get("time_zone", DEFAULT_TIME_ZONE).strip()
    zone = known_zone(typed_zone)
    errors = course_form_errors(get_session(), code, title) + ([] if zone else ["course.bad_time_zone"])
    if errors or zone is None:
        return _home(422, errors, code, title, typed_zone)
    course = create_course(get_session(), signed_in(), code, title, zone)
    if course is None:  # created by another request since the check above
        return _home(422, ["course.code_taken"], code, title, zone)
    flash(t("course.created", page_lang()))
    return redirect(url_for("teacher.course", course_id=course.id))


@routes.get("/courses/<int:course_id>")
@teacher_required
def course(course_id: int) -> ResponseReturnValue:
    """The course dashboard: statistics and histogram per assignment, progress per student."""
    found = course_or_404(get_session(), signed_in(), course_id)
    number = request.args.get("page", default=1, type=int)  # not a number: the first page
    shown = course_page(get_session(), found, page_lang(), number, clean_search(request.args.get("q")))
    return render("teach/course.html", page=shown, course=found)

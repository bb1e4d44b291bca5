"""The roster: enrol one student, enrol many from a CSV (preview first), remove a student."""
from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.models import Course, EnrolmentRole
from grader.teacher import roster
from grader.teacher.access import course_or_404, teacher_required
from grader.teacher.blueprint import teacher
from grader.teacher.strings import tt
from grader.web.pages import page_lang, render, signed_in


def _roster_page(course: Course, status: int = 200, **extra: object) -> ResponseReturnValue:
    """The roster page with the current members (and any preview or errors passed in)."""
    session = get_session()
    return render("teach/roster.html", status, course=course, students=roster.members(session, course, EnrolmentRole.STUDENT),
                  teachers=roster.members(session, course, EnrolmentRole.TEACHER), **extra)


def _enrolled(course: Course, usernames: list[str]) -> ResponseReturnValue:
    """Enrol ``usernames``; back to the roster with a count, or the page with the refused rows."""
    count, refused = roster.enrol(get_session(), course, usernames)
    flash(tt("roster.enrolled", page_lang(), n=count))
    if refused:
        return _roster_page(course, 422, refused=refused)
    return redirect(url_for("teacher.roster_page", course_id=course.id))


@teacher.get("/courses/<int:course_id>/roster")
@teacher_required
def roster_page(course_id: int) -> ResponseReturnValue:
    """Who is in the course, with forms to enrol and remove."""
    return _roster_page(course_or_404(get_session(), signed_in(), course_id))


@teacher.post("/courses/<int:course_id>/roster/add")
@teacher_required
def roster_add(course_id: int) -> ResponseReturnValue:
    """Enrol one student by username."""
    course = course_or_404(get_session(), signed_in(), course_id)
    return _enrolled(course, [request.form.get("username", "").strip()])


@teacher.post("/courses/<int:course_id>/roster/upload")
@teacher_required
def roster_upload(course_id: int) -> ResponseReturnValue:
    """Read an uploaded CSV and show each row's check; nothing is enrolled yet."""
    course = course_or_404(get_session(), signed_in(), course_id)
    upload = request.files.get("file")
    try:
        rows = roster.read_usernames(upload.read() if upload else b"")
    except roster.RosterFileError as exc:
        return _roster_page(course, 422, file_error=tt(exc.key, page_lang(), **exc.values))
    return _roster_page(course, preview=roster.check_rows(get_session(), course, rows))


@teacher.post("/courses/<int:course_id>/roster/confirm")
@teacher_required
def roster_confirm(course_id: int) -> ResponseReturnValue:
    """Enrol the rows the preview accepted (checked again now)."""
    course = course_or_404(get_session(), signed_in(), course_id)
    return _enrolled(course, request.form.getlist("username"))


@teacher.post("/courses/<int:course_id>/roster/<int:user_id>/remove")
@teacher_required
def roster_remove(course_id: int, user_id: int) -> ResponseReturnValue:
    """Remove a student from the course; their submissions are kept."""
    course = course_or_404(get_session(), signed_in(), course_id)
    removed = roster.remove_student(get_session(), course, user_id)
    if removed is not None:
        flash(tt("roster.removed", page_lang(), name=removed.display_name))
    return redirect(url_for("teacher.roster_page", course_id=course.id))

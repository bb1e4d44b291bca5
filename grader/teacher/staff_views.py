"""A course's staff page: its teachers, its co-teachers and TAs; add one by username, change their role, remove
them. Seeing it needs a staff part in the course; changing it, the right to manage staff (grader.grading.access)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.courses import roster
from grader.extensions import get_session
from grader.grading import course_staff
from grader.grading.access import Action
from grader.grading.refusals import FieldRefused
from grader.i18n import t
from grader.models import Course, EnrolmentRole
from grader.teacher.access import course_or_404, teacher_required, teaches
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes


def _staff_page(course: Course, status: int = 200, **form: object) -> ResponseReturnValue:
    """The staff page (with the add form's error and values, if it was refused)."""
    session = get_session()
    return render(
        "teach/staff.html",
        status,
        course=course,
        owners=roster.members(session, course, EnrolmentRole.TEACHER),
        members=course_staff.staff_of(session, course),
        roles=course_staff.STAFF_ROLES,
        can_manage=teaches(session, signed_in(), course.id, Action.MANAGE_STAFF),
        **{"add_username": "", "add_role": course_staff.STAFF_ROLES[-1], **form},
    )


routes = Routes()


@routes.route("/courses/<int:course_id>/staff", methods=["GET", "POST"])
@teacher_required
def staff_page(course_id: int) -> ResponseReturnValue:
    """The course's staff; a post adds (or re-roles) the username typed, a refusal is a sentence by the form."""
    if request.method == "GET":
        return _staff_page(course_or_404(get_session(), signed_in(), course_id))
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_STAFF)
    username, role = request.form.get("username", "").strip(), request.form.get("role", "")
    try:
        change = course_staff.put_staff(get_session(), course, username, course_staff.staff_role(role), signed_in())
    except FieldRefused as refused:
        message = t(refused.key, page_lang(), name=username)
        return _staff_page(
            course, 422, add_error=message, add_field=refused.field, add_username=username, add_role=role
        )
    flash(t("staff.added" if change.added else "staff.changed", page_lang(), name=username))
    return redirect(url_for("teacher.staff_page", course_id=course.id))


@routes.post("/courses/<int:course_id>/staff/<username>/role")
@teacher_required
def staff_role(course_id: int, username: str) -> ResponseReturnValue:
    """Change a staff member's role (someone not on the staff: 404; a role not offered: 422 on the page)."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_STAFF)
    if (
        not course_staff.readable_username(username)
        or course_staff.staff_member(get_session(), course, username) is None
    ):
        return _staff_page(course, 404)
    try:
        course_staff.put_staff(
            get_session(), course, username, course_staff.staff_role(request.form.get("role")), signed_in()
        )
    except FieldRefused as refused:
        return _staff_page(course, 422, add_error=t(refused.key, page_lang(), name=username), add_field=refused.field)
    flash(t("staff.changed", page_lang(), name=username))
    return redirect(url_for("teacher.staff_page", course_id=course.id))


@routes.post("/courses/<int:course_id>/staff/<username>/remove")
@teacher_required
def staff_remove(course_id: int, username: str) -> ResponseReturnValue:
    """Remove a staff member (their own submissions stay); someone not on the staff changes nothing."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_STAFF)
    if course_staff.readable_username(username) and course_staff.remove_staff(get_session(), course, username):
        flash(t("staff.removed", page_lang(), name=username))
    return redirect(url_for("teacher.staff_page", course_id=course.id))

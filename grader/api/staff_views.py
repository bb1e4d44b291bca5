"""API routes for a course's staff list: read, add or re-role (PUT), and remove (DELETE) a co-teacher or TA.

Reading needs a staff part in the course, changing it the right to manage staff (grader.grading.access); the rules
of the list are ``grader.grading.course_staff``. Non-members get a 404, members without the right a 403.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy.orm import Session

from grader.api import queries
from grader.api.schemas_base import no_query, read_body
from grader.api.schemas_staff import StaffRequest
from grader.api.views import blueprint
from grader.api_errors import ApiError
from grader.auth import Principal, require_principal, require_user
from grader.extensions import get_session
from grader.grading import course_staff
from grader.grading.access import Action
from grader.grading.refusals import FieldRefused
from grader.i18n import t
from grader.models import Course, CourseStaff, iso_timestamp


def staff_json(member: CourseStaff) -> dict[str, Any]:
    """A staff member as the API shows it."""
    return {
        "course_id": member.course_id,
        "username": member.user.username,
        "display_name": member.user.display_name,
        "role": member.role,
        "added_by": member.added_by,
        "updated_at": iso_timestamp(member.updated_at),
    }


def staff_course(session: Session, principal: Principal, course_id: int, action: Action) -> Course:
    """The course if the caller may do ``action`` there; 404 to non-members, 403 to members without the right."""
    course = session.get(Course, course_id)
    if course is None or not queries.teaches(session, principal, course_id, Action.VIEW_COURSE):
        raise ApiError(404, "not_found", f"No course {course_id}.")
    if not queries.teaches(session, principal, course_id, action):
        message = (
            "Only the course's staff and admins may read its staff."
            if action == Action.SEE_STUDENTS
            else "Only the course's teachers, co-teachers and admins may change its staff."
        )
        raise ApiError(403, "forbidden", message)
    return course


def path_username(username: str) -> str:
    """The username of the URL path; 400 naming it if it cannot be one."""
    if not course_staff.readable_username(username):
        raise ApiError(400, "invalid_parameter", "The username in the path is not acceptable.", field="username")
    return username


def _member(session: Session, course: Course, username: str) -> CourseStaff:
    """The staff row of ``username``; 404 if they are not on the course's staff."""
    path_username(username)
    member = course_staff.staff_member(session, course, username)
    if member is None:
        raise ApiError(404, "not_found", f"{username} is not on the staff of course {course.id}.")
    return member


@blueprint.get("/courses/<int:course_id>/staff")
@require_user
@no_query
def list_staff(course_id: int) -> ResponseReturnValue:
    """The course's co-teachers and TAs, by username."""
    session = get_session()
    course = staff_course(session, require_principal(), course_id, Action.SEE_STUDENTS)
    return jsonify({"staff": [staff_json(member) for member in course_staff.staff_of(session, course)]})


@blueprint.get("/courses/<int:course_id>/staff/<username>")
@require_user
@no_query
def get_staff(course_id: int, username: str) -> ResponseReturnValue:
    """One staff member of the course."""
    session = get_session()
    course = staff_course(session, require_principal(), course_id, Action.SEE_STUDENTS)
    return jsonify(staff_json(_member(session, course, username)))


@blueprint.put("/courses/<int:course_id>/staff/<username>")
@require_user
@no_query
def put_staff(course_id: int, username: str) -> ResponseReturnValue:
    """Make ``username`` a co-teacher or TA of the course (added, or their role changed)."""
    session, principal = get_session(), require_principal()
    course = staff_course(session, principal, course_id, Action.MANAGE_STAFF)
    path_username(username)
    wanted = read_body(StaffRequest)
    try:
        change = course_staff.put_staff(session, course, username, course_staff.staff_role(wanted.role), principal.user)
    except FieldRefused as refused:
        if refused.key == "staff.err_unknown":
            raise ApiError(404, "not_found", t(refused.key, "en", name=username), field=refused.field) from None
        raise ApiError(422, "invalid_value", t(refused.key, "en", name=username), field=refused.field) from None
    return jsonify(staff_json(change.member))


@blueprint.delete("/courses/<int:course_id>/staff/<username>")
@require_user
@no_query
def delete_staff(course_id: int, username: str) -> ResponseReturnValue:
    """Remove ``username`` from the course's staff (their own submissions stay)."""
    session = get_session()
    course = staff_course(session, require_principal(), course_id, Action.MANAGE_STAFF)
    _member(session, course, username)
    course_staff.remove_staff(session, course, username)
    return "", 204

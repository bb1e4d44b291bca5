"""The extensions page of an assignment: give a student a later due date or extra attempts, or remove them.

The rules are ``grader.grading.terms``'s; this module reads the form (times typed in the course's zone) and shows
the page, with the refusal's message next to the field it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from flask import redirect, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from grader.extensions import get_session
from grader.grading import terms
from grader.grading.access import Action
from grader.grading.refusals import FieldRefused
from grader.models import Assignment, utcnow
from grader.teacher.access import assignment_or_404, teacher_required
from grader.teacher.assignments import FORM_YEARS
from grader.teacher.student_choice import chosen_student, flash_student, student_page
from grader.teacher.zones import FORM_TIME, LocalTimeError, to_utc
from grader.ui.page_helpers import signed_in
from grader.ui.routes import Routes
from grader.whole_numbers import whole_number


@dataclass(frozen=True)
class ExtensionForm:
    """The form as typed, so that it can be shown again with its error."""

    student: str = ""
    due_at: str = ""
    extra_attempts: str = ""
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)  # field -> teacher-page string key


class FormRefused(FieldRefused):
    """A field that cannot even be read."""


def _local_time(text: str, zone: str) -> datetime | None:
    """A datetime-local value typed in ``zone`` as a UTC instant (empty: None)."""
    if not text:
        return None
    try:
        local = datetime.strptime(text, FORM_TIME)
        if not FORM_YEARS[0] <= local.year <= FORM_YEARS[1]:
            raise FormRefused("due_at", "ext.err_date")
        return to_utc(local, zone)
    except (LocalTimeError, ValueError) as exc:
        raise FormRefused("due_at", "ext.err_date") from exc


def request_from(form: ExtensionForm, zone: str) -> tuple[int, terms.ExtensionRequest]:
    """The student id and what is asked for them; FormRefused for a field that cannot be read."""
    student = chosen_student(form.student, "ext.err_student")
    extra_attempts = whole_number(form.extra_attempts or "0", 9999)
    if extra_attempts is None:
        raise FormRefused("extra_attempts", "ext.err_attempts")
    return student, terms.ExtensionRequest(_local_time(form.due_at, zone), extra_attempts, form.reason)


def form_from(posted: MultiDict[str, str]) -> ExtensionForm:
    """The posted form's values, trimmed."""

    def typed(name: str) -> str:
        return posted.get(name, "").strip()

    return ExtensionForm(typed("student"), typed("due_at"), typed("extra_attempts"), typed("reason"))


def _page(assignment: Assignment, form: ExtensionForm, status: int = 200) -> ResponseReturnValue:
    """The extensions page: the assignment's terms, the current extensions and the form."""
    extensions = terms.extensions_of(get_session(), assignment)
    return student_page("teach/extensions.html", assignment, form, status, extensions=extensions)


routes = Routes()


@routes.route("/assignments/<int:assignment_id>/extensions", methods=["GET", "POST"])
@teacher_required
def extensions_page(assignment_id: int) -> ResponseReturnValue:
    """The assignment's extensions, or give (replace) one from the form."""
    session = get_session()
    assignment = assignment_or_404(session, signed_in(), assignment_id, Action.GIVE_EXTENSIONS)
    if request.method == "GET":
        return _page(assignment, ExtensionForm())
    form = form_from(request.form)
    try:
        student_id, wanted = request_from(form, assignment.course.time_zone)
        terms.grant_extension(session, assignment, student_id, wanted, signed_in().id, utcnow())
    except FieldRefused as exc:
        session.rollback()
        return _page(assignment, replace(form, errors={exc.field: exc.key}), 422)
    flash_student(session, "ext.saved", student_id)
    return redirect(url_for("teacher.extensions_page", assignment_id=assignment.id))


@routes.post("/assignments/<int:assignment_id>/extensions/<int:student_id>/clear")
@teacher_required
def clear_extension(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Remove a student's extension: the assignment's own terms hold for them again."""
    session = get_session()
    assignment = assignment_or_404(session, signed_in(), assignment_id, Action.GIVE_EXTENSIONS)
    if terms.clear_extension(session, assignment, student_id, utcnow()):
        flash_student(session, "ext.cleared", student_id)
    return redirect(url_for("teacher.extensions_page", assignment_id=assignment.id))

"""The overrides page of an assignment: set the score that counts for a student (an exercise or the total), with a
reason, or clear it; with the log of every change.

The rules are ``grader.grading.overrides``'s; this module reads the form (the score as a percent) and shows the page,
with the refusal's message next to the field it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from flask import redirect, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from grader.extensions import get_session
from grader.grading import overrides
from grader.grading.access import Action
from grader.grading.refusals import FieldRefused
from grader.i18n import t
from grader.models import Assignment, utcnow
from grader.models.overrides import TOTAL
from grader.teacher.access import assignment_or_404, teacher_required
from grader.teacher.late_form import percent
from grader.teacher.student_choice import chosen_student, flash_student, student_page
from grader.ui.exercise_catalogue import exercise_title
from grader.ui.page_helpers import page_lang, signed_in
from grader.ui.routes import Routes

FIELDS = ("student", "exercise_id", "score", "reason")


@dataclass(frozen=True)
class OverrideForm:
    """The form as typed, so that it can be shown again with its error."""

    student: str = ""
    exercise_id: str = TOTAL
    score: str = ""
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)  # field -> string key


def _read(form: OverrideForm) -> tuple[int, overrides.OverrideRequest]:
    """The student id and the override asked for; a FieldRefused for a field that cannot be read."""
    student = chosen_student(form.student, "ovr.err_student")
    value = percent(form.score)
    if value is None:
        raise overrides.OverrideRefused("score", "ovr.err_percent")
    return student, overrides.OverrideRequest(form.exercise_id, value / 100.0, form.reason)


def _page(assignment: Assignment, form: OverrideForm, status: int = 200) -> ResponseReturnValue:
    """The overrides page: the current overrides, the form and the log."""
    session = get_session()
    lang = page_lang()
    titles = {e: exercise_title(e, lang) for e in assignment.exercise_ids} | {TOTAL: t("ovr.total", lang)}
    return student_page(
        "teach/overrides.html",
        assignment,
        form,
        status,
        titles=titles,
        overrides=list(overrides.overrides_of(session, assignment).values()),
        log=overrides.override_log(session, assignment),
    )


routes = Routes()


@routes.route("/assignments/<int:assignment_id>/overrides", methods=["GET", "POST"])
@teacher_required
def overrides_page(assignment_id: int) -> ResponseReturnValue:
    """The assignment's overrides, or set (replace) one from the form."""
    session = get_session()
    assignment = assignment_or_404(session, signed_in(), assignment_id, Action.OVERRIDE)
    if request.method == "GET":
        return _page(assignment, OverrideForm())
    posted: MultiDict[str, str] = request.form
    student, exercise_id, score, reason = (posted.get(name, "").strip() for name in FIELDS)
    form = OverrideForm(student, exercise_id, score, reason)
    try:
        student_id, wanted = _read(form)
        overrides.set_override(session, assignment, student_id, wanted, f"user:{signed_in().username}", utcnow())
    except FieldRefused as exc:
        session.rollback()
        return _page(assignment, replace(form, errors={exc.field: exc.key}), 422)
    flash_student(session, "ovr.saved", student_id)
    return redirect(url_for("teacher.overrides_page", assignment_id=assignment.id))


@routes.post("/assignments/<int:assignment_id>/overrides/<int:student_id>/clear")
@teacher_required
def clear_override(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Clear one override (``exercise_id`` in the form; empty: the total's)."""
    session = get_session()
    assignment = assignment_or_404(session, signed_in(), assignment_id, Action.OVERRIDE)
    exercise_id = request.form.get("exercise_id", TOTAL)
    if overrides.clear_override(session, assignment, student_id, exercise_id, f"user:{signed_in().username}", utcnow()):
        flash_student(session, "ovr.cleared", student_id)
    return redirect(url_for("teacher.overrides_page", assignment_id=assignment.id))

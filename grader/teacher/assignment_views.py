"""Creating and editing assignments, and previewing a sample variant of a catalogue exercise."""

from __future__ import annotations

from flask import abort, flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from exercises import api as engine
from grader.extensions import get_session
from grader.grading import grading_rules
from grader.grading.access import Action
from grader.i18n import t
from grader.models import Assignment, Course, utcnow
from grader.models.courses import utc_offset_label
from grader.teacher import assignments, removal
from grader.teacher.access import assignment_or_404, course_or_404, teacher_required
from grader.teacher.variant_mode import variant_mode
from grader.teacher.zones import offset_now
from grader.ui.exercise_catalogue import exercise_title
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes


def _form_page(
    course: Course, form: assignments.AssignmentForm, assignment: Assignment | None, status: int = 200, dropped: int = 0
) -> ResponseReturnValue:
    """The assignment form (new or edit) with the exercise catalogue; ``dropped``: the grades the posted exercise
    list would stop counting, asked about before it is saved."""
    return render(
        "teach/assignment_form.html",
        status,
        course=course,
        form=form,
        assignment=assignment,
        catalogue=assignments.catalogue(page_lang()),
        score_policies=assignments.SCORE_POLICIES,
        key_policies=assignments.KEY_POLICIES,
        offset=utc_offset_label(offset_now(course.time_zone)),
        variants=variant_mode(get_session(), assignment, utcnow()),
        dropped=dropped,
    )


def _save(course: Course, assignment: Assignment | None) -> ResponseReturnValue:
    """Check the posted form (times in the course's zone); save and go to the assignment dashboard, or show the
    form again with errors."""
    settings, form = assignments.check(assignments.form_from_request(request.form), course.time_zone, assignment)
    if settings is None:
        return _form_page(course, form, assignment, 422)
    if assignment is not None and request.form.get("confirm_removal") != "yes":
        dropped = removal.grades_dropped(get_session(), assignment, settings.exercise_ids)
        if dropped:  # nothing saved until the teacher confirms, knowing how many grades stop counting
            return _form_page(course, form, assignment, 409, dropped)
    policy_before = None if assignment is None else grading_rules.policy_of(assignment)
    saved = assignments.save(get_session(), course.id, settings, assignment)
    flash(t("asg.saved", page_lang()))
    if policy_before is not None and policy_before != grading_rules.policy_of(saved):
        # Existing scores follow a new policy only through a regrade: its preview says what that would change.
        flash(t("gpolicy.changed", page_lang()))
        return redirect(url_for("teacher.regrade_preview", assignment_id=saved.id, policy_changed=1))
    return redirect(url_for("teacher.assignment", assignment_id=saved.id))


routes = Routes()


@routes.route("/courses/<int:course_id>/assignments/new", methods=["GET", "POST"])
@teacher_required
def new_assignment(course_id: int) -> ResponseReturnValue:
    """A blank assignment form, or create the assignment from it."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.EDIT_ASSIGNMENTS)
    if request.method == "POST":
        return _save(course, None)
    return _form_page(course, assignments.AssignmentForm(), None)


@routes.route("/assignments/<int:assignment_id>/edit", methods=["GET", "POST"])
@teacher_required
def edit_assignment(assignment_id: int) -> ResponseReturnValue:
    """The form filled with the assignment's settings, or save the changes."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id, Action.EDIT_ASSIGNMENTS)
    if request.method == "POST":
        return _save(found.course, found)
    return _form_page(found.course, assignments.form_from_assignment(found), found)


@routes.post("/assignments/<int:assignment_id>/delete")
@teacher_required
def delete_assignment(assignment_id: int) -> ResponseReturnValue:
    """Delete an assignment no student has submitted to: the first post asks, one with confirm=yes acts. One with
    students' submissions is kept, and the page says why (archiving the course is the way to close it)."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id, Action.DELETE_ASSIGNMENTS)
    lang, course, title = page_lang(), found.course, found.title(page_lang())
    back = url_for("teacher.assignment", assignment_id=found.id)
    if assignments.has_student_work(get_session(), found):
        return render("teach/cannot_delete.html", 409, course=course, title=title, back=back)
    if request.form.get("confirm") != "yes":
        tries = assignments.staff_tries(get_session(), found)
        note = (
            t("asg.delete_staff_tries_one" if tries == 1 else "asg.delete_staff_tries", lang, n=tries) if tries else ""
        )
        return render(
            "teach/confirm.html",
            course=course,
            cancel=back,
            action=request.path,
            heading=t("asg.delete_heading", lang, title=title),
            question=t("asg.delete_question", lang),
            note=note,
            button=t("asg.delete_yes", lang),
        )
    if not assignments.delete(get_session(), found.id):  # a submission came in after the question
        return render("teach/cannot_delete.html", 409, course=course, title=title, back=back)
    flash(t("asg.deleted", lang, title=title))
    return redirect(url_for("teacher.course", course_id=course.id))


@routes.get("/exercises/<exercise_id>/preview")
@teacher_required
def preview(exercise_id: str) -> ResponseReturnValue:
    """A sample variant (seed from ?seed=, default the book variant 0) with its answer key."""
    lang, seed = page_lang(), assignments.parse_seed(request.args.get("seed"))
    if exercise_id not in engine.exercise_ids(graded_only=True):
        abort(404)
    if seed is None:
        return render(
            "teach/preview.html",
            422,
            exercise_id=exercise_id,
            seed=request.args.get("seed"),
            title=exercise_title(exercise_id, lang),
            sample=None,
        )
    return render(
        "teach/preview.html",
        exercise_id=exercise_id,
        seed=seed,
        title=exercise_title(exercise_id, lang),
        sample=assignments.preview(exercise_id, seed, lang),
    )

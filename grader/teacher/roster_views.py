"""The roster: enrol one student, enrol many from a CSV or .xlsx file (preview first; accounts that do not exist yet
are created), remove a student (after a confirmation)."""

from __future__ import annotations

from flask import abort, flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.courses import roster, roster_accounts, roster_files
from grader.extensions import get_session
from grader.grading.access import Action
from grader.i18n import t
from grader.models import Course, EnrolmentRole
from grader.teacher.access import course_or_404, teacher_required
from grader.teacher.blueprint import body_limit
from grader.teacher.paging import clean_search, students_page
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

# What the one-student form says for a refused username (any other reason: "Cannot enrol {name}: {reason}.").
ONE_STUDENT_ERRORS = {
    "roster.err_empty": "roster.one_empty",
    "roster.err_unknown": "roster.one_unknown",
    "roster.err_teacher": "roster.one_teacher",
    "roster.err_enrolled": "roster.one_enrolled",
}


def _roster_page(course: Course, status: int = 200, **extra: object) -> ResponseReturnValue:
    """The roster page with the current members (and any preview or errors passed in)."""
    session = get_session()
    return render(
        "teach/roster.html",
        status,
        course=course,
        **_students(course),
        teachers=roster.members(session, course, EnrolmentRole.TEACHER),
        waiting=roster_accounts.count_without_password(session, course),
        **extra,
    )


def _students(course: Course) -> dict[str, object]:
    """The page of students the request asks for (``page``, ``q``), with its paging and the course's head count."""
    search = clean_search(request.args.get("q"))
    students, paging = students_page(get_session(), course.id, request.args.get("page", 1, type=int), search)
    # Unsearched, the paging has just counted every student: a second count of the same rows would be wasted.
    total = paging.total if not search else roster.student_counts(get_session(), [course.id]).get(course.id, 0)
    return {"students": students, "paging": paging, "student_total": total}


routes = Routes()


@routes.get("/courses/<int:course_id>/roster")
@teacher_required
def roster_page(course_id: int) -> ResponseReturnValue:
    """Who is in the course, with forms to enrol and remove."""
    return _roster_page(course_or_404(get_session(), signed_in(), course_id))


@routes.post("/courses/<int:course_id>/roster/add")
@teacher_required
def roster_add(course_id: int) -> ResponseReturnValue:
    """Enrol one student by username; a refusal is one sentence next to the form."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_ROSTER)
    username = request.form.get("username", "").strip()
    _count, refused = roster.enrol(get_session(), course, [(1, username)])
    if refused:
        error = refused[0].error or ""
        key = ONE_STUDENT_ERRORS.get(error)
        lang = page_lang()
        message = (
            t(key, lang, name=username) if key else t("roster.one_refused", lang, name=username, reason=t(error, lang))
        )
        return _roster_page(course, 422, add_error=message, add_username=username)
    flash(t("roster.enrolled_one", page_lang(), name=username))
    return redirect(url_for("teacher.roster_page", course_id=course.id))


@routes.post("/courses/<int:course_id>/roster/upload")
@body_limit(roster.MAX_ROSTER_BYTES, "roster.err_too_large", "teacher.roster_page")
@teacher_required
def roster_upload(course_id: int) -> ResponseReturnValue:
    """Read an uploaded CSV or workbook and show what each row would do; nothing is created or enrolled yet."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_ROSTER)
    upload = request.files.get("file")
    try:
        entries = roster_files.read_entries(upload.read() if upload else b"")
    except roster_files.RosterFileError as exc:
        return _roster_page(course, 422, file_error=t(exc.key, page_lang(), **exc.values))
    return _roster_page(course, preview=roster_accounts.check_entries(get_session(), course, entries))


@routes.post("/courses/<int:course_id>/roster/confirm")
@body_limit(roster.MAX_ROSTER_BYTES, "error.too_large", "teacher.roster_page")
@teacher_required
def roster_confirm(course_id: int) -> ResponseReturnValue:
    """Create and enrol the rows the preview accepted (checked again now); refused rows keep their line in the file."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_ROSTER)
    rows = roster.confirmed_rows(request.form.getlist("row"))
    entries = roster_accounts.confirmed_entries(rows, request.form.getlist("name")) if rows is not None else None
    if entries is None:  # only a hand-made form sends anything but the preview's "line:username" values and names
        abort(400)
    created, count, refused = roster_accounts.enrol_entries(get_session(), course, entries)
    flash(t("roster.enrolled", page_lang(), n=count))
    if created:
        flash(t("roster.created", page_lang(), n=len(created)))
    if refused:
        return _roster_page(course, 422, refused=refused)
    return redirect(url_for("teacher.roster_page", course_id=course.id))


@routes.post("/courses/<int:course_id>/roster/<int:user_id>/remove")
@teacher_required
def roster_remove(course_id: int, user_id: int) -> ResponseReturnValue:
    """Remove a student from the course (their submissions are kept): the first post asks, one with confirm=yes acts."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.MANAGE_ROSTER)
    back = url_for("teacher.roster_page", course_id=course.id)
    student = roster.student(get_session(), course, user_id)
    if student is None:  # not a student here (any more): nothing to confirm or remove
        return redirect(back)
    if request.form.get("confirm") != "yes":
        lang = page_lang()
        return render(
            "teach/confirm.html",
            course=course,
            cancel=back,
            action=request.path,
            heading=t("roster.remove_heading", lang, name=student.display_name),
            question=t(
                "roster.remove_question",
                lang,
                name=student.display_name,
                username=student.username,
                course=course.title,
            ),
            button=t("roster.remove_yes", lang),
        )
    removed = roster.remove_student(get_session(), course, user_id)
    if removed is not None:
        flash(t("roster.removed", page_lang(), name=removed.display_name))
    return redirect(back)

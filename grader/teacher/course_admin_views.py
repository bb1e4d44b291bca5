"""A course's settings page (time zone, sign-in length) and archiving or unarchiving it, each after a confirmation."""

from __future__ import annotations

from flask import current_app, flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.grading.access import Action
from grader.i18n import t
from grader.models import Course
from grader.models.courses import utc_offset_label
from grader.teacher import course_settings
from grader.teacher.access import course_or_404, teacher_required
from grader.teacher.zones import COMMON_TIME_ZONES, known_zone, offset_now
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes


def _settings_page(
    course: Course,
    status: int = 200,
    time_zone: str | None = None,
    error: str | None = None,
    hours_typed: str | None = None,
) -> ResponseReturnValue:
    """The settings form (the zone or sign-in length typed, if it was refused) with the archive or unarchive
    button."""
    return render(
        "teach/course_settings.html",
        status,
        course=course,
        zones=COMMON_TIME_ZONES,
        error=error,
        time_zone=course.time_zone if time_zone is None else time_zone,
        offset=utc_offset_label(offset_now(course.time_zone)),
        session_hours=(str(course.session_hours or "") if hours_typed is None else hours_typed),
        site_hours=current_app.config["GRADER_SESSION_HOURS"],
        most_hours=course_settings.SESSION_HOURS_MOST,
    )


routes = Routes()


@routes.route("/courses/<int:course_id>/settings", methods=["GET", "POST"])
@teacher_required
def course_settings_page(course_id: int) -> ResponseReturnValue:
    """The course's time zone: shown, or changed (opening and due times keep their instants)."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.EDIT_COURSE)
    if request.method == "GET":
        return _settings_page(course)
    typed = request.form.get("time_zone", "").strip()
    zone = known_zone(typed)
    if zone is None:
        return _settings_page(course, 422, typed, "course.bad_time_zone")
    course_settings.set_time_zone(get_session(), course, zone)
    flash(t("course.settings_saved", page_lang()))
    return redirect(url_for("teacher.course_settings_page", course_id=course.id))


@routes.post("/courses/<int:course_id>/session-length")
@teacher_required
def course_session_length(course_id: int) -> ResponseReturnValue:
    """How long its members' sign-ins last at most: set, changed, or lifted (an empty field)."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.EDIT_COURSE)
    typed = request.form.get("session_hours", "")
    hours, readable = course_settings.read_session_hours(typed)
    if not readable:
        return _settings_page(course, 422, error="course.bad_session_hours", hours_typed=typed)
    course_settings.set_session_hours(get_session(), course, hours)
    flash(t("course.settings_saved", page_lang()))
    return redirect(url_for("teacher.course_settings_page", course_id=course.id))


def _archive_action(course_id: int, archived: bool) -> ResponseReturnValue:
    """Archive (or unarchive) the course: the first post asks, one with confirm=yes acts."""
    course = course_or_404(get_session(), signed_in(), course_id, Action.EDIT_COURSE)
    back = url_for("teacher.course_settings_page", course_id=course.id)
    prefix = "archive" if archived else "unarchive"
    lang = page_lang()
    if course.archived == archived:  # already so (e.g. a second tab): nothing to confirm
        return redirect(back)
    if request.form.get("confirm") != "yes":
        return render(
            "teach/confirm.html",
            course=course,
            cancel=back,
            action=request.path,
            heading=t(f"{prefix}.heading", lang, title=course.title),
            question=t(f"{prefix}.question", lang, title=course.title),
            button=t(f"{prefix}.yes", lang),
        )
    if course_settings.set_archived(get_session(), course, archived):
        flash(t(f"{prefix}.done", lang))
    return redirect(url_for("teacher.course", course_id=course.id))


@routes.post("/courses/<int:course_id>/archive")
@teacher_required
def archive_course(course_id: int) -> ResponseReturnValue:
    """Make the course read-only for its students, after a confirmation."""
    return _archive_action(course_id, True)


@routes.post("/courses/<int:course_id>/unarchive")
@teacher_required
def unarchive_course(course_id: int) -> ResponseReturnValue:
    """Let the course's students submit again, after a confirmation."""
    return _archive_action(course_id, False)

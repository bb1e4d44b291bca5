"""Sign-in links from the roster: a CSV of links for every student still without a password (for a mail merge),
and a new link for one student who forgot theirs (shown once)."""

from __future__ import annotations

from flask import Response, abort, url_for
from flask.typing import ResponseReturnValue

from grader.courses import roster, roster_accounts
from grader.extensions import get_session
from grader.grading.access import Action
from grader.models import Course
from grader.sign_in_links import IssuedLink, issue_links
from grader.teacher.access import course_or_404, teacher_required
from grader.teacher.exports import csv_lines, safe_text
from grader.ui.page_helpers import render, signed_in
from grader.ui.routes import Routes

LINKS_HEADER = ("username", "name", "sign_in_link", "expires")
BOM = "\ufeff"  # so that Excel and WPS open the UTF-8 file (Chinese names) by double-click

routes = Routes()


def _link_row(course: Course, issued: IssuedLink) -> list[str]:
    """One student's row of the links download."""
    return [
        safe_text(issued.user.username),
        safe_text(issued.user.display_name),
        url_for("web.sign_in_link", token=issued.token, _external=True),
        course.show_time(issued.link.expires_at),
    ]


@routes.post("/courses/<int:course_id>/roster/links")
@teacher_required
def roster_links(course_id: int) -> ResponseReturnValue:
    """New sign-in links for the students who have not chosen a password, as a CSV (earlier links stop working)."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id, Action.MANAGE_ROSTER)
    issued = issue_links(session, roster_accounts.without_password(session, course), signed_in())
    text = BOM + "".join(csv_lines([LINKS_HEADER, *(_link_row(course, one) for one in issued)]))
    return Response(
        text,
        mimetype="text/csv",
        headers={
            "Content-Disposition": f'attachment; filename="{course.code}-sign-in-links.csv"',
            "Cache-Control": "no-store",
        },
    )


@routes.post("/courses/<int:course_id>/roster/<int:user_id>/link")
@teacher_required
def roster_new_link(course_id: int, user_id: int) -> ResponseReturnValue:
    """A new sign-in link for one student of the course (their earlier links stop working), shown once."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id, Action.MANAGE_ROSTER)
    student = roster.student(session, course, user_id)
    issued = issue_links(session, [student], signed_in()) if student is not None else []
    if not issued:  # not a student here, or an account with more than a student's role
        abort(404)
    return render(
        "teach/sign_in_link.html",
        course=course,
        student=student,
        link=_link_row(course, issued[0])[2],
        expires=course.show_time(issued[0].link.expires_at),
    )

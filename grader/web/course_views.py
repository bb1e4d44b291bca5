"""My courses and one assignment's exercise list."""

from __future__ import annotations

from flask import redirect, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.models import utcnow
from grader.ui.page_helpers import login_required, page_lang, render, signed_in, visible_or_404
from grader.ui.routes import Routes
from grader.web.services import assignment_view, my_courses, visible_assignment

routes = Routes()


@routes.get("/")
def home() -> ResponseReturnValue:
    """The front door: the course list (which asks anonymous visitors to log in)."""
    return redirect(url_for("web.courses"))


@routes.get("/courses")
@login_required
def courses() -> ResponseReturnValue:
    """Every course of the user with a progress bar per assignment."""
    return render("courses.html", courses=my_courses(get_session(), signed_in(), page_lang(), utcnow()))


@routes.get("/assignments/<int:assignment_id>")
@login_required
def assignment(assignment_id: int) -> ResponseReturnValue:
    """One assignment: its exercises with score, attempts left and status."""
    session, user = get_session(), signed_in()
    found = visible_or_404(lambda: visible_assignment(session, user, assignment_id))
    return render("assignment.html", view=assignment_view(session, user, found, page_lang(), utcnow()))

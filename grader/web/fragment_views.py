"""Pieces of the pages as the server renders them, for the exercise page's script to insert after a submit: a
graded result and the assignment's standing. A result is rendered once, by the same macros as the full pages (the
script never builds one itself, nor rounds a percentage)."""

from __future__ import annotations

from flask import jsonify, render_template
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.models import utcnow
from grader.ui.exercise_catalogue import field_labels
from grader.ui.page_helpers import login_required, page_lang, signed_in, visible_or_404
from grader.ui.routes import Routes
from grader.web.exercise_service import exercise_standing
from grader.web.services import visible_assignment_as, visible_submission

routes = Routes()


@routes.get("/submissions/<int:submission_id>/result")
@login_required
def submission_result(submission_id: int) -> ResponseReturnValue:
    """One of the user's submissions: its status and its result as the pages show it (``html``), in the page's
    language."""
    session, lang = get_session(), page_lang()
    found = visible_or_404(lambda: visible_submission(session, signed_in(), submission_id))
    html = render_template("fragments/result.html", submission=found, labels=field_labels(found.exercise_id, lang))
    return jsonify({"id": found.id, "status": str(found.status), "html": html})


@routes.get("/assignments/<int:assignment_id>/exercises/<exercise_id>/standing")
@login_required
def exercise_standing_fragment(assignment_id: int, exercise_id: str) -> ResponseReturnValue:
    """The assignment's progress bar and this exercise's attempts line as the exercise page shows them, and the
    attempts left (null: no limit)."""
    session, user, lang = get_session(), signed_in(), page_lang()
    found, staff = visible_or_404(lambda: visible_assignment_as(session, user, assignment_id))
    standing = visible_or_404(lambda: exercise_standing(session, user, found, exercise_id, lang, utcnow(), staff))
    context = {"view": standing.progress, "row": standing.row}
    return jsonify(
        {
            "progress": render_template("fragments/progress.html", **context),
            "attempts": render_template("fragments/attempts.html", **context),
            "attempts_left": standing.row.attempts_left,
        }
    )

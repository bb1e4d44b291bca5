"""The exercise page (with a plain-form submit for browsers without JavaScript) and the submission history."""

from __future__ import annotations

import secrets

from flask import redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.models import utcnow
from grader.ui.exercise_catalogue import exercise_title, field_labels
from grader.ui.page_helpers import login_required, page_lang, render, signed_in, visible_or_404
from grader.ui.routes import Routes
from grader.web.attempts import attempt_number
from grader.web.exercise_service import exercise_page, form_from_latest, submit_form
from grader.web.services import (
    first_feedback,
    refresh_seconds,
    submission_history,
    visible_assignment,
    visible_assignment_as,
    visible_submission,
)

EXERCISE_PATH = "/assignments/<int:assignment_id>/exercises/<exercise_id>"


def _page(assignment_id: int, exercise_id: str, status: int = 200, **extra: object) -> ResponseReturnValue:
    """Render the exercise page for the signed-in user (404 if not theirs to see)."""
    session, user, lang = get_session(), signed_in(), page_lang()
    found, staff = visible_or_404(lambda: visible_assignment_as(session, user, assignment_id))
    page = visible_or_404(lambda: exercise_page(session, user, found, exercise_id, lang, utcnow(), staff))
    # A form sent back (without JavaScript) shows what was sent; a fresh page, the latest answer to edit.
    form, prefilled = (request.form, False) if request.method == "POST" else (form_from_latest(page), True)
    return render(
        "exercise.html",
        status,
        page=page,
        assignment=found,
        form=form,
        prefilled=prefilled and bool(form),
        idempotency_key=secrets.token_urlsafe(16),
        **extra,
    )


routes = Routes()


@routes.get(EXERCISE_PATH)
@login_required
def exercise(assignment_id: int, exercise_id: str) -> ResponseReturnValue:
    """The prompt, the student's variant as tables, one input per answer part, and the latest result."""
    return _page(assignment_id, exercise_id)


@routes.post(EXERCISE_PATH)
@login_required
def exercise_submit(assignment_id: int, exercise_id: str) -> ResponseReturnValue:
    """Without JavaScript: validate, submit, then show the submission (which refreshes until graded)."""
    session, user = get_session(), signed_in()
    found = visible_or_404(lambda: visible_assignment(session, user, assignment_id))
    outcome = visible_or_404(
        lambda: submit_form(session, user, found, exercise_id, request.form, page_lang(), utcnow())
    )
    if outcome.submission_id is not None:
        return redirect(url_for("web.submission", submission_id=outcome.submission_id))
    return _page(assignment_id, exercise_id, outcome.status, validation=outcome.validation, refusal=outcome.refusal)


@routes.get("/submissions")
@login_required
def submissions() -> ResponseReturnValue:
    """All of the user's submissions, grouped per exercise, newest first."""
    groups = submission_history(get_session(), signed_in(), page_lang())
    return render("submissions.html", groups=groups, summary=first_feedback)


@routes.get("/submissions/<int:submission_id>")
@login_required
def submission(submission_id: int) -> ResponseReturnValue:
    """One of the user's submissions with its per-part result."""
    session = get_session()
    found = visible_or_404(lambda: visible_submission(session, signed_in(), submission_id))
    lang = page_lang()
    return render(
        "submission.html",
        submission=found,
        labels=field_labels(found.exercise_id, lang),
        title=exercise_title(found.exercise_id, lang),
        attempt=attempt_number(session, found),
        refresh=refresh_seconds(found, utcnow()),
    )

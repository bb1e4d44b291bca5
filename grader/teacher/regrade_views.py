"""Starting a regrade of an assignment and following it: progress bar, then the report of what changed."""

from __future__ import annotations

from flask import redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.grading.access import Action
from grader.grading.regrade import request_regrade
from grader.grading.regrade_preview import preview_regrade
from grader.teacher.access import assignment_or_404, regrade_or_404, teacher_required
from grader.teacher.dashboard_data import regrade_context
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()


@routes.post("/assignments/<int:assignment_id>/regrade")
@teacher_required
def start_regrade(assignment_id: int) -> ResponseReturnValue:
    """Queue a regrade job on the workers (or return to the one already running) and show its progress."""
    user = signed_in()
    found = assignment_or_404(get_session(), user, assignment_id, Action.REGRADE)
    job = request_regrade(
        get_session(), assignment=found, user=user, never_lower=request.form.get("never_lower") == "on"
    )
    return redirect(url_for("teacher.regrade", job_id=job.id))


@routes.get("/assignments/<int:assignment_id>/regrade/preview")
@teacher_required
def regrade_preview(assignment_id: int) -> ResponseReturnValue:
    """How many scores a regrade would change (up, down), nothing written; the form to start it follows. Never-lower
    is offered ticked, except after a change of grading policy (?policy_changed=1): kept scores would not follow it."""
    found = assignment_or_404(get_session(), signed_in(), assignment_id, Action.REGRADE)
    return render(
        "teach/regrade_preview.html",
        assignment=found,
        course=found.course,
        preview=preview_regrade(get_session(), found),
        never_lower=request.args.get("policy_changed") != "1",
    )


@routes.get("/regrades/<int:job_id>")
@teacher_required
def regrade(job_id: int) -> ResponseReturnValue:
    """The job's progress (the page refreshes itself while it runs) and, when done, the report."""
    job = regrade_or_404(get_session(), signed_in(), job_id)
    page = request.args.get("page", default=1, type=int)  # not a number: the first page
    return render("teach/regrade.html", **regrade_context(get_session(), job, page_lang(), page))

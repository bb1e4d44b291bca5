"""Grades flow back by themselves: a graded submission writes an outbox row in the grade's own transaction, a real
worker sends the counted score to the LMS's gradebook (one line item per assignment and context, found or created
once), and an LMS that is down gets every score once it is back, none twice."""

from __future__ import annotations

import re

import pytest
from flask import Flask, request
from sqlalchemy import select

from grader.extensions import get_db
from grader.grading.sweeper import sweep
from grader.models import Assignment, LtiLineItem, LtiScoreOutbox, OutboxStatus, User
from tests.lti.conftest import STAFF, ToolBrowser, grade, sweep_until
from tests.lti.platform import LEARNER, LmsPlatform, PlannedLaunch
from tests.lti.platform_ags import Gradebook
from tests.support import wait_for


def test_a_grade_reaches_the_lms_gradebook_once_on_one_created_line_item(
    lms_app: Flask, course_in_lms: tuple[LmsPlatform, Gradebook, Assignment, User]
) -> None:
    _lms, book, assignment, alice = course_in_lms
    score = grade(lms_app, alice, assignment)
    sent = sweep_until(lms_app, lambda: book.scores_of("alice"), "alice's score at the LMS")
    assert len(sent) == 1
    assert sent[0]["scoreGiven"] == pytest.approx(score) and sent[0]["scoreMaximum"] == 1.0
    assert sent[0]["gradingProgress"] == "FullyGraded" and sent[0]["activityProgress"] == "Completed"
    assert sent[0]["timestamp"] and sent[0]["submittedAt"]
    assert book.created == 1 and book.line_items["ctx-1"][0]["resourceId"] == str(assignment.id)
    assert "type=grade" in sent[0]["query"]  # /scores was put before the line item URL's query string

    def statuses() -> list[str]:
        with lms_app.app_context(), get_db(lms_app).session() as session:
            return [r.status for r in session.scalars(select(LtiScoreOutbox)).all()]

    wait_for(lambda: statuses() == [OutboxStatus.SENT], "the row marked sent")  # the LMS may answer before we commit
    with lms_app.app_context(), get_db(lms_app).session() as session:
        assert session.scalars(select(LtiLineItem)).one().url == book.line_items["ctx-1"][0]["id"]
    # A second grade: the same line item is used (found in our table), not created again.
    grade(lms_app, alice, assignment)
    sweep_until(lms_app, lambda: len(book.scores_of("alice")) == 2, "the second score")
    assert book.created == 1


def test_an_lms_down_then_up_gets_every_score_once(
    lms_app: Flask, course_in_lms: tuple[LmsPlatform, Gradebook, Assignment, User]
) -> None:
    lms, book, assignment, alice = course_in_lms
    lms.fault = lambda: ("down for maintenance", 503, {"Retry-After": "1"})
    grade(lms_app, alice, assignment)

    def retried() -> bool:

        with lms_app.app_context(), get_db(lms_app).session() as session:
            row = session.scalars(select(LtiScoreOutbox)).one()
            return row.attempts >= 2 and row.status == OutboxStatus.PENDING and "503" in (row.last_error or "")

    sweep_until(lms_app, retried, "two failed tries while the LMS is down")
    assert book.scores == []
    lms.fault = lambda: None
    sweep_until(lms_app, lambda: book.scores_of("alice"), "the score once the LMS is back")
    for _ in range(5):
        sweep(lms_app)
    assert len(book.scores_of("alice")) == 1


def test_a_refused_score_needs_attention_on_the_teacher_page_and_is_resent(
    lms_app: Flask, course_in_lms: tuple[LmsPlatform, Gradebook, Assignment, User]
) -> None:
    lms, book, assignment, alice = course_in_lms
    refuse = {"on": True}

    def user_not_in_course() -> tuple[str, int, dict[str, str]] | None:
        if refuse["on"] and request.path.endswith("/scores"):
            return '{"error": "user not in course"}', 422, {}
        return None

    lms.fault = user_not_in_course
    grade(lms_app, alice, assignment)

    def failed() -> bool:
        with lms_app.app_context(), get_db(lms_app).session() as session:
            return session.scalars(select(LtiScoreOutbox)).one().status == OutboxStatus.FAILED

    sweep_until(lms_app, failed, "the refused score marked as needing attention")
    staff = STAFF[lms.url]
    page = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'data-status="failed"' in html and "422" in html
    token = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert token is not None
    with lms_app.app_context(), get_db(lms_app).session() as session:
        row_id = session.scalars(select(LtiScoreOutbox)).one().id
    refuse["on"] = False
    answer = staff.client.post(
        f"/lti/outbox/{row_id}/resend", data={"csrf_token": token.group(1)}, base_url=lms.tool_url
    )
    assert answer.status_code == 302
    sweep_until(lms_app, lambda: book.scores_of("alice"), "the resent score")
    html = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url).get_data(as_text=True)
    assert 'data-status="sent"' in html
    # A student cannot see the page, nor resend.
    learner = ToolBrowser(lms_app.test_client(), lms)
    learner.launch(PlannedLaunch("alice", [LEARNER], custom={"assignment_id": str(assignment.id)}))
    assert learner.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url).status_code == 404

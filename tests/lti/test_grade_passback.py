"""Grades flow back by themselves: a graded submission writes an outbox row in the grade's own transaction, a real
worker sends the counted score to the LMS's gradebook (one line item per assignment and context, found or created
once), and an LMS that is down gets every score once it is back, none twice."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask, request
from sqlalchemy import select
from werkzeug.serving import make_server

from grader.extensions import get_db
from grader.grading.sweeper import sweep
from grader.models import Assignment, LtiIdentity, LtiLineItem, LtiScoreOutbox, OutboxStatus, User
from tests.lti.conftest import ToolBrowser, bind_course, register
from tests.lti.platform import LEARNER, LmsPlatform, PlannedLaunch
from tests.lti.platform_ags import Gradebook, add_gradebook
from tests.pipeline_helpers import submit_book_answer, wait_final
from tests.support import WorkerProcess, wait_for

STAFF: dict[str, ToolBrowser] = {}  # the instructor's signed-in browser, by LMS


@pytest.fixture
def course_in_lms(
    lms_app: Flask, fast_worker: WorkerProcess
) -> Iterator[tuple[LmsPlatform, Gradebook, Assignment, User]]:
    """A live grader, the LMS with a gradebook, the context bound by its instructor, and alice launched once."""

    server = make_server("127.0.0.1", 0, lms_app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    lms = LmsPlatform()
    book = add_gradebook(lms)
    lms.start(f"http://127.0.0.1:{server.server_port}")
    with lms_app.app_context(), get_db(lms_app).session() as session:
        register(session, lms)
        bound = bind_course(lms_app, session, lms)
        assignment, custom, staff = bound.assignment, bound.custom, bound.staff
        assert (
            ToolBrowser(lms_app.test_client(), lms).launch(PlannedLaunch("alice", [LEARNER], custom=custom)).status_code
            == 302
        )
        STAFF[lms.url] = staff
        alice = session.scalars(
            select(User).join(LtiIdentity, LtiIdentity.user_id == User.id).where(LtiIdentity.sub == "alice")
        ).one()
        yield lms, book, assignment, alice
    lms.stop()
    server.shutdown()


def _grade(app: Flask, alice: User, assignment: Assignment) -> float:
    """Alice submits the book's answer to the assignment; the score the worker gave it."""
    with app.app_context(), get_db(app).session() as session:
        stored = submit_book_answer(session, alice, assignment_id=assignment.id)
        graded = wait_final(session, stored.id)
        assert graded.score is not None
        return graded.score


def _sweep_until(app: Flask, probe: Callable[[], Any], what: str) -> Any:
    def step() -> Any:
        sweep(app)
        return probe()

    return wait_for(step, what)


def test_a_grade_reaches_the_lms_gradebook_once_on_one_created_line_item(
    lms_app: Flask, course_in_lms: tuple[LmsPlatform, Gradebook, Assignment, User]
) -> None:
    _lms, book, assignment, alice = course_in_lms
    score = _grade(lms_app, alice, assignment)
    sent = _sweep_until(lms_app, lambda: book.scores_of("alice"), "alice's score at the LMS")
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
    _grade(lms_app, alice, assignment)
    _sweep_until(lms_app, lambda: len(book.scores_of("alice")) == 2, "the second score")
    assert book.created == 1


def test_an_lms_down_then_up_gets_every_score_once(
    lms_app: Flask, course_in_lms: tuple[LmsPlatform, Gradebook, Assignment, User]
) -> None:
    lms, book, assignment, alice = course_in_lms
    lms.fault = lambda: ("down for maintenance", 503, {"Retry-After": "1"})
    _grade(lms_app, alice, assignment)

    def retried() -> bool:

        with lms_app.app_context(), get_db(lms_app).session() as session:
            row = session.scalars(select(LtiScoreOutbox)).one()
            return row.attempts >= 2 and row.status == OutboxStatus.PENDING and "503" in (row.last_error or "")

    _sweep_until(lms_app, retried, "two failed tries while the LMS is down")
    assert book.scores == []
    lms.fault = lambda: None
    _sweep_until(lms_app, lambda: book.scores_of("alice"), "the score once the LMS is back")
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
    _grade(lms_app, alice, assignment)

    def failed() -> bool:
        with lms_app.app_context(), get_db(lms_app).session() as session:
            return session.scalars(select(LtiScoreOutbox)).one().status == OutboxStatus.FAILED

    _sweep_until(lms_app, failed, "the refused score marked as needing attention")
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
    _sweep_until(lms_app, lambda: book.scores_of("alice"), "the resent score")
    html = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url).get_data(as_text=True)
    assert 'data-status="sent"' in html
    # A student cannot see the page, nor resend.
    learner = ToolBrowser(lms_app.test_client(), lms)
    learner.launch(PlannedLaunch("alice", [LEARNER], custom={"assignment_id": str(assignment.id)}))
    assert learner.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url).status_code == 404

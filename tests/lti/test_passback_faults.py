"""Grade passback when the LMS misbehaves, against the real worker: a platform that hangs is given up on at the
HTTP time-out and retried, the score arriving once with the timestamp of the grade; a 429 is retried no sooner than
its Retry-After; a plain 403 needs attention on the teacher's page and is not retried, a rate-limit 403 is; and a
teacher's override reaches the LMS gradebook by itself, once."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask, request
from sqlalchemy import select

from grader.extensions import get_db
from grader.grading.sweeper import sweep
from grader.lti.ags import LINEITEM_TYPE
from grader.models import Assignment, LtiScoreOutbox, OutboxStatus, User
from tests.lti.conftest import STAFF, grade, sweep_until
from tests.lti.platform import LmsPlatform
from tests.lti.platform_ags import Gradebook

HANG_SECONDS = 6.0  # beyond the fast worker's 3 s HTTP time-out

Course = tuple[LmsPlatform, Gradebook, Assignment, User]
Answer = tuple[str, int, dict[str, str]]


@dataclass
class ScoreFault:
    """A fault on the LMS's score endpoint for its first ``times`` score posts; every post recorded (when, and the
    score's timestamp)."""

    answer: Callable[[], Answer | None]
    times: int = 1
    posts: list[tuple[float, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> Answer | None:
        if not request.path.endswith("/scores"):
            return None
        with self.lock:
            self.posts.append((time.monotonic(), str((request.get_json(silent=True) or {}).get("timestamp"))))
            faulty = len(self.posts) <= self.times
        return self.answer() if faulty else None


def _row(app: Flask) -> LtiScoreOutbox:
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(LtiScoreOutbox).order_by(LtiScoreOutbox.id.desc())).first()  # type: ignore[return-value]


def _settle(app: Flask, rounds: int = 4) -> None:
    """A few more sweeps, time for anything sent twice to arrive."""
    for _ in range(rounds):
        sweep(app)
        time.sleep(0.5)


def test_a_hanging_lms_is_timed_out_retried_and_gets_the_score_once(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms

    def hang() -> Answer:
        time.sleep(HANG_SECONDS)
        return "too late", 504, {}

    lms.fault = fault = ScoreFault(hang)
    score = grade(lms_app, alice, assignment)
    sent = sweep_until(lms_app, lambda: book.scores_of("alice"), "the score after the hang")
    row = _row(lms_app)
    assert row.attempts == 2 and row.status in (OutboxStatus.SENT, OutboxStatus.PENDING)
    _settle(lms_app)
    assert len(book.scores_of("alice")) == 1 and sent[0]["scoreGiven"] == pytest.approx(score)
    # Two posts, never overlapping a third, both stamped with the time of the grade.
    assert len(fault.posts) == 2 and fault.posts[0][1] == fault.posts[1][1] == sent[0]["timestamp"]
    assert _row(lms_app).status == OutboxStatus.SENT


def test_a_429_is_retried_no_sooner_than_its_retry_after(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms
    lms.fault = fault = ScoreFault(lambda: ('{"errors": "slow down"}', 429, {"Retry-After": "3"}))
    grade(lms_app, alice, assignment)
    row = sweep_until(lms_app, lambda: "429" in (_row(lms_app).last_error or "") and _row(lms_app), "the 429")
    assert row.status == OutboxStatus.PENDING and row.attempts == 1
    sweep_until(lms_app, lambda: book.scores_of("alice"), "the score after Retry-After")
    # Our own backoff is scaled down to 5 % in this worker; the LMS's Retry-After is not.
    assert fault.posts[1][0] - fault.posts[0][0] >= 3.0
    _settle(lms_app)
    assert len(book.scores_of("alice")) == 1 and len(fault.posts) == 2


def test_a_plain_403_needs_attention_and_is_not_retried(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms
    lms.fault = fault = ScoreFault(lambda: ('{"errors": "unpublished course"}', 403, {}), times=100)
    grade(lms_app, alice, assignment)
    sweep_until(lms_app, lambda: _row(lms_app).status == OutboxStatus.FAILED, "the 403 marked as needing attention")
    _settle(lms_app)
    assert len(fault.posts) == 1 and book.scores == []
    staff = STAFF[lms.url]
    html = staff.client.get(f"/lti/courses/{assignment.course_id}/grades", base_url=lms.tool_url).get_data(as_text=True)
    assert 'data-status="failed"' in html and "403" in html and "unpublished course" in html


def test_a_200_without_json_needs_attention_instead_of_failing_every_retry(
    lms_app: Flask, course_in_lms: Course
) -> None:
    # A proxy in front of the LMS answering its HTML sign-in page with 200: the line-item look-up used to raise
    # in the task, which then failed the same way on every re-send, the row never marked for the teacher.
    lms, book, assignment, alice = course_in_lms
    looked_up: list[str] = []

    def sign_in_page() -> Answer | None:
        if request.method == "GET" and request.path.endswith("/lineitems"):
            looked_up.append(request.path)
            return "<html><body>Sign in</body></html>", 200, {"Content-Type": "text/html"}
        return None

    lms.fault = sign_in_page
    grade(lms_app, alice, assignment)
    row = sweep_until(lms_app, lambda: _row(lms_app).status == OutboxStatus.FAILED and _row(lms_app), "needs attention")
    assert "without JSON" in (row.last_error or "") and "Sign in" in (row.last_error or "")
    _settle(lms_app)
    assert len(looked_up) == 1 and book.scores == []


def test_a_line_item_url_longer_than_we_keep_needs_attention(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms

    def long_line_item() -> Answer | None:
        if request.method == "POST" and request.path.endswith("/lineitems"):
            return '{"id": "%s"}' % ("http://127.0.0.2/" + "l" * 1000), 201, {"Content-Type": LINEITEM_TYPE}
        return None

    lms.fault = long_line_item
    grade(lms_app, alice, assignment)
    row = sweep_until(lms_app, lambda: _row(lms_app).status == OutboxStatus.FAILED and _row(lms_app), "needs attention")
    assert "longer than 1000" in (row.last_error or "") and book.scores == []


def test_a_rate_limit_403_is_retried(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms
    lms.fault = fault = ScoreFault(lambda: ("403 Forbidden (Rate Limit Exceeded)", 403, {}))
    grade(lms_app, alice, assignment)
    sweep_until(lms_app, lambda: book.scores_of("alice"), "the score after the rate limit")
    _settle(lms_app)
    assert len(fault.posts) == 2 and len(book.scores_of("alice")) == 1


def test_a_teachers_override_reaches_the_lms_gradebook_once(lms_app: Flask, course_in_lms: Course) -> None:
    lms, book, assignment, alice = course_in_lms
    grade(lms_app, alice, assignment)
    sweep_until(lms_app, lambda: book.scores_of("alice"), "the graded score")
    staff = STAFF[lms.url]
    page = staff.client.get(f"/teach/assignments/{assignment.id}/overrides", base_url=lms.tool_url)
    token = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.get_data(as_text=True))
    assert page.status_code == 200 and token is not None
    form: dict[str, Any] = {
        "csrf_token": token.group(1),
        "student": str(alice.id),
        "exercise_id": "",
        "score": "40",
        "reason": "re-marked by hand",
    }
    answer = staff.client.post(f"/teach/assignments/{assignment.id}/overrides", data=form, base_url=lms.tool_url)
    assert answer.status_code == 302, answer.get_data(as_text=True)[:500]
    scores = sweep_until(lms_app, lambda: len(book.scores_of("alice")) == 2 and book.scores_of("alice"), "override")
    assert scores[1]["scoreGiven"] == pytest.approx(0.4) and scores[1]["timestamp"] > scores[0]["timestamp"]
    _settle(lms_app)
    assert len(book.scores_of("alice")) == 2

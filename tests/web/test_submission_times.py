"""A student's submission times are shown in the course's zone, as its due date is; a submission made outside any
assignment stays in UTC. The machine-readable <time datetime> is always the UTC instant."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from grader.extensions import get_db
from grader.models import Assignment, Course, Submission, User

Login = Callable[[FlaskClient, str], str]
ATTENTION = "ch09.scaled-dot-attention"
SUBMITTED = datetime(2026, 11, 30, 11, 45, tzinfo=UTC)  # 19:45 in Beijing, a minute before the due time
DUE = SUBMITTED + timedelta(minutes=1)


def _submissions(app: Flask) -> tuple[int, int]:
    """student1's submission to the demo's chapter 9 assignment (course in Asia/Shanghai) and one to no assignment."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 9"))).one()
        session.get_one(Course, assignment.course_id).time_zone = "Asia/Shanghai"
        assignment.opens_at, assignment.due_at = SUBMITTED - timedelta(days=7), DUE
        student = session.scalars(select(User).where(User.username == "student1")).one()
        rows = [
            Submission(
                user_id=student.id,
                assignment_id=assignment_id,
                exercise_id=ATTENTION,
                seed=0,
                lang="zh",
                raw_answer={},
                status="invalid",
                created_at=SUBMITTED,
            )
            for assignment_id in (assignment.id, None)
        ]
        session.add_all(rows)
        session.commit()
        return rows[0].id, rows[1].id


def test_submission_times_are_in_the_course_zone(app: Flask, client: FlaskClient, login: Login) -> None:
    in_course, loose = _submissions(app)
    login(client, "student1")
    zoned = f'<time datetime="{SUBMITTED.isoformat()}">2026-11-30 19:45 (Asia/Shanghai, UTC+8)</time>'
    utc = f'<time datetime="{SUBMITTED.isoformat()}">2026-11-30 11:45 UTC</time>'
    history = client.get("/submissions").get_data(as_text=True)
    assert zoned in history and utc in history  # one of each
    assert "2026-11-30 19:46 (Asia/Shanghai, UTC+8)" in client.get(f"/assignments/{_assignment(app)}").get_data(
        as_text=True
    )  # the due date it is compared with, in the same zone
    detail = client.get(f"/submissions/{in_course}").get_data(as_text=True)
    assert zoned in detail and "UTC</time>" not in detail
    assert utc in client.get(f"/submissions/{loose}").get_data(as_text=True)


def _assignment(app: Flask) -> int:
    with app.app_context(), get_db(app).session() as session:
        return session.scalars(select(Assignment.id).where(Assignment.title_en.startswith("Chapter 9"))).one()

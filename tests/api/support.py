"""API test helpers: a client that speaks JSON with a bearer token, a small school of users and courses, error checks."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, User
from grader.security import issue_token

CH13_IDS = (
    "ch13.shift-pairs",
    "ch13.exposure-divergence",
    "ch13.greedy-decode",
    "ch13.encoder-states",
    "ch13.encoder-collision",
    "ch13.loss-average",
)


@dataclass(frozen=True)
class School:
    """Ids and raw tokens of the people, courses and assignments every API test starts with."""

    tokens: dict[str, str]  # username -> raw bearer token (role as the user's)
    user_ids: dict[str, int]
    course_a: int
    course_b: int
    open_assignment: int  # course A, open, 2 attempts, key after attempts
    closed_assignment: int  # course A, past due, key after due
    future_assignment: int  # course A, not open yet
    other_assignment: int  # course B
    practice_assignment: int  # course A, open, unlimited attempts, key never shown, every ch13 exercise


class Api:
    """A JSON client for /api/v1 that sends a bearer token."""

    def __init__(self, client: FlaskClient, school: School) -> None:
        self.client = client
        self.school = school

    def headers(self, who: str | None, extra: dict[str, str] | None = None) -> dict[str, str]:
        """Authorization for ``who`` (None: anonymous) plus ``extra``."""
        headers = dict(extra or {})
        if who is not None:
            headers["Authorization"] = f"Bearer {self.school.tokens[who]}"
        return headers

    def get(self, path: str, who: str | None, **kwargs: Any) -> TestResponse:
        """GET /api/v1<path> as ``who``."""
        return self.client.get(f"/api/v1{path}", headers=self.headers(who, kwargs.pop("headers", None)), **kwargs)

    def post(
        self,
        path: str,
        who: str | None,
        body: Any = None,
        raw: str | bytes | None = None,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> TestResponse:
        """POST a JSON body (or ``raw`` bytes) to /api/v1<path> as ``who``."""
        data = raw if raw is not None else json.dumps(body)
        return self.client.post(
            f"/api/v1{path}", data=data, content_type=content_type, headers=self.headers(who, headers)
        )


def assert_error(
    response: TestResponse, status: int, code: str | None = None, field: str | None = None
) -> dict[str, Any]:
    """Assert a JSON error response of the shared shape; returns its ``error`` object."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error"}
    error = body["error"]
    assert {"code", "message", "field"} <= set(error)
    assert isinstance(error["message"], str) and error["message"]
    assert "Traceback" not in response.get_data(as_text=True)
    if code is not None:
        assert error["code"] == code, error
    if field is not None:
        assert error["field"] == field, error
    return error


def _user(session: Any, username: str, role: str) -> User:
    """Add a user."""
    user = User(username=username, display_name=username.title(), role=role)
    session.add(user)
    return user


def _assignment(course: Course, title: str, **settings: Any) -> Assignment:
    """An assignment over the ch13 shift-pairs exercise (the first one the engine had)."""
    return Assignment(
        course=course,
        title_zh=title,
        title_en=title,
        exercise_ids=settings.pop("exercise_ids", ["ch13.shift-pairs"]),
        **settings,
    )


def build_school(app: Flask) -> School:
    """Users: admin, teacher (course A), teacher_b (course B), alice and bob (students of A), carol (student of B)."""
    now = datetime.now(UTC)
    with get_db(app).session() as session:
        people = {
            name: _user(session, name, role)
            for name, role in [
                ("admin", Role.ADMIN),
                ("teacher", Role.TEACHER),
                ("teacher_b", Role.TEACHER),
                ("alice", Role.STUDENT),
                ("bob", Role.STUDENT),
                ("carol", Role.STUDENT),
            ]
        }
        course_a, course_b = Course(code="A", title="Course A"), Course(code="B", title="Course B")
        session.add_all([course_a, course_b])
        for course, name, role in [
            (course_a, "teacher", EnrolmentRole.TEACHER),
            (course_b, "teacher_b", EnrolmentRole.TEACHER),
            (course_a, "alice", EnrolmentRole.STUDENT),
            (course_a, "bob", EnrolmentRole.STUDENT),
            (course_b, "carol", EnrolmentRole.STUDENT),
        ]:
            session.add(Enrolment(course=course, user=people[name], role=role))
        assignments = [
            _assignment(
                course_a,
                "open",
                attempts_allowed=2,
                answer_key_policy="after_attempts",
                opens_at=now - timedelta(days=1),
                due_at=now + timedelta(days=7),
            ),
            _assignment(course_a, "closed", opens_at=now - timedelta(days=9), due_at=now - timedelta(days=1)),
            _assignment(course_a, "future", opens_at=now + timedelta(days=3)),
            _assignment(course_b, "other"),
            _assignment(course_a, "practice", answer_key_policy="never", exercise_ids=list(CH13_IDS)),
        ]
        session.add_all(assignments)
        session.flush()
        tokens = {name: issue_token(session, user, name="test") for name, user in people.items()}
        tokens["teacher_as_student"] = issue_token(session, people["teacher"], name="low", role=Role.STUDENT)
        session.commit()
        return School(
            tokens=tokens,
            user_ids={n: u.id for n, u in people.items()},
            course_a=course_a.id,
            course_b=course_b.id,
            open_assignment=assignments[0].id,
            closed_assignment=assignments[1].id,
            future_assignment=assignments[2].id,
            other_assignment=assignments[3].id,
            practice_assignment=assignments[4].id,
        )


def set_exercises(app: Flask, assignment_id: int, exercise_ids: list[str]) -> None:
    """Change what an assignment sets (e.g. so that it no longer shares a variant whose key a test expects)."""
    with get_db(app).session() as session:
        session.get_one(Assignment, assignment_id).exercise_ids = exercise_ids
        session.commit()


@dataclass(frozen=True)
class Attempt:
    """A finished submission to insert directly (no worker), and the grade-log row a grading would have written."""

    user_id: int
    assignment_id: int | None
    exercise_id: str
    status: str = "graded"
    score: float | None = None
    logged_at: datetime | None = None  # the grade-log row's created_at; None: no row (as for invalid answers)


def add_attempts(app: Flask, attempts: list[Attempt]) -> list[int]:
    """Insert ``attempts`` in this order (so their ids follow it) with their grade-log rows; their ids."""
    from grader.models import GradeLogEntry, Submission  # appended helpers: the imports above stay as they were
    from tests.factories import rebuild_progress

    ids = []
    with get_db(app).session() as session:
        for index, attempt in enumerate(attempts):
            row = Submission(
                user_id=attempt.user_id,
                assignment_id=attempt.assignment_id,
                exercise_id=attempt.exercise_id,
                seed=index,
                lang="en",
                raw_answer={"x": "1"},
                status=attempt.status,
                score=attempt.score,
                engine_version="1.0.0",
            )
            session.add(row)
            session.flush()
            if attempt.logged_at is not None:
                session.add(
                    GradeLogEntry(
                        submission_id=row.id,
                        new_score=attempt.score,
                        new_engine_version="1.0.0",
                        reason="graded",
                        actor="worker:test:1",
                        created_at=attempt.logged_at,
                    )
                )
                session.flush()
            ids.append(row.id)
        session.commit()
        rebuild_progress(session)  # as the pipeline would have kept them
    return ids


def add_grade_log(
    app: Flask,
    submission_id: int,
    old_score: float | None,
    new_score: float | None,
    created_at: datetime,
    reason: str = "regrade #1: test",
    actor: str = "user:teacher",
) -> int:
    """Append one grade-log row to a submission; its id."""
    from grader.models import GradeLogEntry

    with get_db(app).session() as session:
        entry = GradeLogEntry(
            submission_id=submission_id,
            old_score=old_score,
            new_score=new_score,
            old_engine_version="1.0.0",
            new_engine_version="1.1.0",
            reason=reason,
            actor=actor,
            created_at=created_at,
        )
        session.add(entry)
        session.commit()
        return entry.id

"""Teacher pages at scale: the SQL statements a page sends do not grow with the number of students.

Two courses of the same shape, one with 5 students and one with 50, each with graded (tagged), invalid and error
submissions and a finished regrade job that changed one submission per student; every teacher page, CSV export and
API listing must send as many statements for the large course as for the small one (a statement per student or per
row would show as a difference of 45). Timings are left to bench/bench_dashboard.py.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from grader.models import (
    Assignment,
    Course,
    Enrolment,
    RegradeChange,
    RegradeJob,
    Role,
    Submission,
    User,
    utcnow,
)
from grader.security import issue_token
from tests.factories import make_user, rebuild_progress, unique
from tests.support import sql_sent

Login = Callable[[str], tuple[FlaskClient, str]]
EXERCISES = ("ch13.loss-average", "ch09.attention-cost")
TAGS = ("log10", "log2", "eos-omitted")


@dataclass(frozen=True)
class ScaleCourse:
    """Ids a page of one generated course is opened with."""

    course_id: int
    assignment_ids: tuple[int, int]
    student_id: int
    job_id: int


def _parts(rng: random.Random, score: float) -> dict[str, Any]:
    """Two parts; a wrong answer's first part carries a tag or none."""
    tags = [rng.choice(TAGS)] if score < 1 and rng.random() < 0.7 else []
    return {
        "a": {
            "score": 0.0 if score < 1 else 1.0,
            "correct": score >= 1,
            "misconception": tags[0] if tags else None,
            "tags": tags,
            "read": f"x{rng.randint(0, 9)}",
        },
        "b": {"score": 1.0, "correct": True, "misconception": None, "tags": [], "read": "y"},
    }


def build_course(session: Session, teacher: User, students: int, seed: int) -> ScaleCourse:
    """A course with ``students`` students, a best- and a last-attempt assignment, submissions and a regrade job."""
    rng = random.Random(seed)
    course = Course(code=unique("scale"), title="Scale course")
    session.add(course)
    session.flush()
    user_ids = list(
        session.scalars(
            insert(User).returning(User.id),
            [
                {"username": unique("scale-student"), "display_name": f"Student {i}", "role": Role.STUDENT}
                for i in range(students)
            ],
        )
    )
    session.execute(
        insert(Enrolment),
        [{"course_id": course.id, "user_id": u, "role": "student"} for u in user_ids]
        + [{"course_id": course.id, "user_id": teacher.id, "role": "teacher"}],
    )
    assignments = [
        Assignment(
            course_id=course.id, title_zh=f"作业 {p}", title_en=f"A {p}", exercise_ids=list(EXERCISES), score_policy=p
        )
        for p in ("best", "last")
    ]
    session.add_all(assignments)
    session.flush()
    created = utcnow() - timedelta(days=1)
    rows = []
    for assignment in assignments:
        for user_id in user_ids:
            for exercise_id in EXERCISES:
                for attempt, status in enumerate(("graded", "invalid", "graded", "error")[: rng.randint(1, 4)]):
                    score = rng.choice((0.0, 0.5, 1.0)) if status == "graded" else None
                    moment = created + timedelta(minutes=attempt)
                    rows.append(
                        {
                            "user_id": user_id,
                            "assignment_id": assignment.id,
                            "exercise_id": exercise_id,
                            "seed": 1,
                            "lang": "en",
                            "raw_answer": {"a": "1"},
                            "status": status,
                            "score": score,
                            "parts": _parts(rng, score) if score is not None else None,
                            "errors": [],
                            "engine_version": "1.0.0",
                            "created_at": moment,
                            "queued_at": moment,
                        }
                    )
    session.execute(insert(Submission), rows)
    job = RegradeJob(
        assignment_id=assignments[0].id,
        requested_by=f"user:{teacher.username}",
        status="done",
        total=len(rows),
        processed=len(rows),
        changed=students,
    )
    session.add(job)
    session.flush()
    graded = session.execute(
        select(Submission.id, Submission.user_id, Submission.exercise_id)
        .where(Submission.assignment_id == assignments[0].id, Submission.status == "graded")
        .order_by(Submission.id)
    ).all()
    first_per_student = {user_id: (sid, eid) for sid, user_id, eid in reversed(graded)}
    session.execute(
        insert(RegradeChange),
        [
            {
                "job_id": job.id,
                "submission_id": sid,
                "user_id": user_id,
                "exercise_id": eid,
                "old_status": "graded",
                "new_status": "graded",
                "old_score": 0.0,
                "new_score": 1.0,
                "reason": "engine change",
            }
            for user_id, (sid, eid) in first_per_student.items()
        ],
    )
    rebuild_progress(session)  # commits: the rows the pipeline would have kept
    return ScaleCourse(course.id, (assignments[0].id, assignments[1].id), user_ids[0], job.id)


@contextmanager
def statements(app: Flask) -> Iterator[list[str]]:
    """Collect the SQL statements the app's engine sends while the block runs."""
    with sql_sent(app) as sent:
        statements_only: list[str] = []
        yield statements_only
    statements_only.extend(statement for statement, _ in sent)


PAGES: dict[str, Callable[[ScaleCourse], tuple[str, str]]] = {
    "course dashboard": lambda c: ("GET", f"/teach/courses/{c.course_id}"),
    "assignment dashboard (best)": lambda c: ("GET", f"/teach/assignments/{c.assignment_ids[0]}"),
    "assignment dashboard (last)": lambda c: ("GET", f"/teach/assignments/{c.assignment_ids[1]}"),
    "student page": lambda c: ("GET", f"/teach/courses/{c.course_id}/students/{c.student_id}"),
    "roster": lambda c: ("GET", f"/teach/courses/{c.course_id}/roster"),
    "course gradebook": lambda c: ("GET", f"/teach/courses/{c.course_id}/gradebook"),
    "course gradebook (by total)": lambda c: ("GET", f"/teach/courses/{c.course_id}/gradebook?sort=total&desc=1"),
    "regrade report": lambda c: ("GET", f"/teach/regrades/{c.job_id}"),
    "grades.csv": lambda c: ("POST", f"/teach/assignments/{c.assignment_ids[0]}/export/grades.csv"),
    "submissions.csv": lambda c: ("POST", f"/teach/assignments/{c.assignment_ids[0]}/export/submissions.csv"),
    "misconceptions.csv": lambda c: ("POST", f"/teach/assignments/{c.assignment_ids[0]}/export/misconceptions.csv"),
}


def count_statements(app: Flask, client: FlaskClient, method: str, url: str, **keywords: Any) -> int:
    """Statements sent while a page is requested and its whole body (streamed or not) is read."""
    client.open(url, method=method, **keywords).get_data()  # warm: sign-in bookkeeping, caches
    with statements(app) as sent:
        response = client.open(url, method=method, **keywords)
        response.get_data()
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return len(sent)


@pytest.fixture
def two_sizes(session: Session) -> tuple[User, ScaleCourse, ScaleCourse]:
    """A teacher of a 5-student and a 50-student course of the same shape."""
    teacher = make_user(session, Role.TEACHER)
    return teacher, build_course(session, teacher, 5, seed=1), build_course(session, teacher, 50, seed=2)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_statements_do_not_grow_with_students(
    app: Flask, login: Login, two_sizes: tuple[User, ScaleCourse, ScaleCourse], page: str
) -> None:
    teacher, small, large = two_sizes
    client, csrf = login(teacher.username)
    counts = []
    for course in (small, large):
        method, url = PAGES[page](course)
        keywords = {"data": {"csrf_token": csrf}} if method == "POST" else {}
        counts.append(count_statements(app, client, method, url, **keywords))
    assert counts[0] == counts[1], f"{page}: {counts[0]} statements for 5 students, {counts[1]} for 50"


def test_assignment_dashboard_reads_its_figures_in_few_statements(
    app: Flask, login: Login, two_sizes: tuple[User, ScaleCourse, ScaleCourse]
) -> None:
    """Statistics with histograms in one statement from the kept statistics, the student table's page in three
    from the progress rows; the misconception table is the one statement that reads the submissions."""
    teacher, _small, large = two_sizes
    client, _csrf = login(teacher.username)
    client.get(f"/teach/assignments/{large.assignment_ids[0]}")
    with statements(app) as sent:
        client.get(f"/teach/assignments/{large.assignment_ids[0]}")
    reading_submissions = [s for s in sent if "submissions" in s]
    assert len(reading_submissions) == 1, reading_submissions
    assert len([s for s in sent if "exercise_score_stats" in s]) == 1, sent  # the statistics, from the kept rows
    assert len([s for s in sent if "progress_rows" in s]) == 1, sent  # the page's figures


def test_api_listing_statements_do_not_grow_with_students(
    app: Flask, session: Session, two_sizes: tuple[User, ScaleCourse, ScaleCourse]
) -> None:
    """A page of the API listing loads its rows' students in one statement, however many students there are."""
    teacher, small, large = two_sizes
    token = issue_token(session, teacher, name="scale")
    session.commit()
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    counts = [
        count_statements(
            app, client, "GET", f"/api/v1/submissions?course={c.course_id}&status=graded&limit=200", headers=headers
        )
        for c in (small, large)
    ]
    assert counts[0] == counts[1], f"{counts[0]} statements for 5 students, {counts[1]} for 50"

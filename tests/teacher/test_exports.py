"""CSV exports downloaded through the dashboard and parsed back with the csv module."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.models import Enrolment, Submission
from grader.teacher import exports
from grader.teacher.export_views import EXPORTS
from tests.teacher.course_data import COST, LOSS, SHIFT, FixtureCourse, build

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.fixture
def fixture_course(session: Session) -> FixtureCourse:
    """The hand-computed fixture course."""
    return build(session)


def download(login: Login, fixture: FixtureCourse, kind: str) -> list[dict[str, str]]:
    """Post the export form as the course's teacher, asking for the machine-readable file (``ids=1``: the ids as
    headers that scripts rely on), and parse the CSV."""
    client, token = login(fixture.teacher.username)
    response = client.post(
        f"/teach/assignments/{fixture.best.id}/export/{kind}.csv", data={"csrf_token": token, "ids": "1"}
    )
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert f"assignment-{fixture.best.id}-{kind}.csv" in response.headers["Content-Disposition"]
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_grades_csv(login: Login, fixture_course: FixtureCourse) -> None:
    """One row per enrolled student, one column per exercise (counted score, blank if never graded), and the total."""
    rows = download(login, fixture_course, "grades")
    # Each student's own due date and extra attempts follow the total (extensions).
    assert list(rows[0]) == [
        "username",
        "display_name",
        LOSS,
        COST,
        "total",
        "due_at",
        "extra_attempts",
        "overridden",
        "late",
        "max_points",
        "percent",
    ]
    by_name = {row["display_name"]: row for row in rows}
    assert set(by_name) == {"Alice", "Bob", "Carol", "Dave"}  # not the teacher, not the outsider
    assert (by_name["Alice"][LOSS], by_name["Alice"][COST], by_name["Alice"]["total"]) == ("1", "0", "1")
    assert (by_name["Bob"][LOSS], by_name["Bob"][COST], by_name["Bob"]["total"]) == ("1", "", "1")
    assert float(by_name["Carol"][LOSS]) == 0.25
    assert float(by_name["Carol"][COST]) == pytest.approx(2 / 3, abs=1e-6)
    assert float(by_name["Carol"]["total"]) == pytest.approx(0.25 + 2 / 3, abs=1e-6)
    assert (by_name["Dave"][LOSS], by_name["Dave"][COST], by_name["Dave"]["total"]) == ("", "", "0")
    assert by_name["Alice"]["username"] == fixture_course.alice.username


def test_submissions_csv(login: Login, session: Session, fixture_course: FixtureCourse) -> None:
    """Every submission of the assignment, with raw and parsed answers as JSON, score, tags and timestamps."""
    rows = download(login, fixture_course, "submissions")
    stored = session.scalars(
        select(Submission).where(Submission.assignment_id == fixture_course.best.id).order_by(Submission.id)
    ).all()
    assert [int(row["submission_id"]) for row in rows] == [s.id for s in stored]
    assert len(rows) == 11  # anyone's rows: the teacher's, the outsider's and the dropped exercise's too
    first = rows[0]
    assert first["username"] == fixture_course.alice.username
    assert first["exercise_id"] == LOSS
    assert (first["status"], first["score"], first["tags"]) == ("graded", "0.5", "log10")
    assert json.loads(first["raw_answer"]) == stored[0].raw_answer
    assert json.loads(first["parsed_answer"]) == stored[0].parsed_answer
    assert first["created_at"] == stored[0].created_at.isoformat()
    assert first["engine_version"] == "1.0.0"
    invalid = next(row for row in rows if row["status"] == "invalid")
    assert (invalid["score"], invalid["parsed_answer"], invalid["tags"]) == ("", "", "")


def test_submissions_csv_says_which_rows_the_dashboards_count(
    login: Login, session: Session, fixture_course: FixtureCourse
) -> None:
    """``counted`` is yes for exactly the rows the dashboards count: graded answers of enrolled students to exercises
    the assignment still sets; the teacher's, the outsider's, the dropped exercise's and unreadable ones are no."""
    f = fixture_course
    rows = download(login, f, "submissions")
    assert list(rows[0]) == [*exports.SUBMISSIONS_HEADER[:-1], "counted"]  # the earlier columns keep their places
    assert list(rows[0])[:13] == [
        "submission_id",
        "username",
        "display_name",
        "exercise_id",
        "seed",
        "status",
        "score",
        "raw_answer",
        "parsed_answer",
        "tags",
        "engine_version",
        "created_at",
        "finished_at",
    ]
    names = {
        f.alice.username: "alice",
        f.bob.username: "bob",
        f.carol.username: "carol",
        f.teacher.username: "teacher",
        f.outsider.username: "outsider",
    }
    table = [(names[r["username"]], r["exercise_id"], r["status"], r["counted"]) for r in rows]
    assert table == [
        ("alice", LOSS, "graded", "yes"),
        ("bob", LOSS, "graded", "yes"),
        ("carol", LOSS, "graded", "yes"),
        ("alice", LOSS, "graded", "yes"),
        ("carol", LOSS, "invalid", "no"),
        ("bob", LOSS, "graded", "yes"),
        ("teacher", LOSS, "graded", "no"),
        ("alice", COST, "graded", "yes"),
        ("carol", COST, "graded", "yes"),
        ("alice", SHIFT, "graded", "no"),
        ("outsider", LOSS, "graded", "no"),
    ]
    # The counted rows are the ones behind the dashboard's figures: LOSS attempted by 3 students, 5 graded answers.
    counted_loss = [r for r in rows if r["counted"] == "yes" and r["exercise_id"] == LOSS]
    assert len({r["username"] for r in counted_loss}) == 3 and len(counted_loss) == 5
    # A student taken off the roster: their rows stay in the file, no longer counted.
    session.execute(delete(Enrolment).where(Enrolment.course_id == f.course.id, Enrolment.user_id == f.bob.id))
    session.commit()
    after = download(login, f, "submissions")
    assert {r["counted"] for r in after if r["username"] == f.bob.username} == {"no"}
    assert [r["counted"] for r in after if r["username"] == f.alice.username] == ["yes", "yes", "yes", "no"]


def test_misconceptions_csv(login: Login, fixture_course: FixtureCourse) -> None:
    """One row per (exercise, tag): count, students, share of wrong answers, wrong answers, examples."""
    rows = download(login, fixture_course, "misconceptions")
    table = [(r["exercise_id"], r["tag"], r["count"], r["students"], r["wrong_answers"]) for r in rows]
    assert table == [
        (LOSS, "log10", "2", "2", "3"),
        (LOSS, "log2", "1", "1", "3"),
        (COST, "causal-half-square", "1", "1", "2"),
        (COST, "linear-growth", "1", "1", "2"),
    ]
    assert float(rows[0]["share_of_wrong"]) == pytest.approx(2 / 3, abs=1e-6)
    assert rows[0]["examples"] == "total_loss: 0.54 | total_loss: 0.5406"
    assert [(r["name_zh"], r["name_en"]) for r in rows[:2]] == [
        ("用了以 10 为底的对数", "Used log base 10"),
        ("用了以 2 为底的对数", "Used log base 2"),
    ]
    assert list(rows[0])[:7] == [
        "exercise_id",
        "tag",
        "count",
        "students",
        "share_of_wrong",
        "wrong_answers",
        "examples",
    ]  # the names come after the columns that were there before


def test_formula_like_names_are_neutralised(login: Login, session: Session, fixture_course: FixtureCourse) -> None:
    """A display name that a spreadsheet would run as a formula is exported with a leading quote."""
    fixture_course.alice.display_name = '=HYPERLINK("http://evil")'
    session.commit()
    rows = download(login, fixture_course, "grades")
    assert '\'=HYPERLINK("http://evil")' in {row["display_name"] for row in rows}


def test_a_download_leaves_no_database_connection_behind(
    app: Flask, login: Login, fixture_course: FixtureCourse
) -> None:
    """The stream reads in a session of its own that closes when the download ends (the request's closed first)."""
    pool = get_db(app).engine.pool
    before = pool.checkedout()
    for kind in EXPORTS:
        assert download(login, fixture_course, kind)
        assert pool.checkedout() == before, kind


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (0.0, "0"),
        (1.0, "1"),
        (0.5, "0.5"),
        (2 / 3, "0.666667"),
        (1.1666667, "1.166667"),
        (12.1666667, "12.166667"),
        (123.4567891, "123.456789"),
        (1e-7, "0"),
        (0.9996, "0.9996"),
    ],
)
def test_numbers_keep_six_decimals_not_six_digits(value: float | None, text: str) -> None:
    assert exports.number(value) == text

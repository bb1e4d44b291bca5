"""Points per exercise: totals in points and percent on the student's page, the API gradebook and the grades export;
the assignment form takes points per exercise (1 when empty) and names a bad one, saving nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.grading.points import points_of
from grader.models import Assignment, Submission, User
from grader.security import issue_token
from tests.factories import make_taught_assignment, rebuild_progress

Login = Callable[[str], tuple[FlaskClient, str]]
SHIFT, LOSS = "ch13.shift-pairs", "ch13.loss-average"


def _weighted(session: Session) -> tuple[Assignment, User, str, int]:
    """Shift pairs worth 3, the loss average worth 1; the student has 1.0 and 0.5. (assignment, teacher, student
    username, student id)."""
    assignment, teacher, student = make_taught_assignment(session)
    assignment.exercise_ids, assignment.exercise_points = [SHIFT, LOSS], {SHIFT: 3.0, LOSS: 1.0}
    for exercise_id, score in ((SHIFT, 1.0), (LOSS, 0.5)):
        session.add(
            Submission(
                user_id=student.id,
                assignment_id=assignment.id,
                exercise_id=exercise_id,
                seed=0,
                lang="en",
                raw_answer={"x": "1"},
                status="graded",
                score=score,
                engine_version="1",
            )
        )
    rebuild_progress(session)  # commits: the rows the pipeline would have kept
    return assignment, teacher, student.username, student.id


def test_totals_are_weighted_by_points_everywhere(login: Login, session: Session) -> None:
    assignment, teacher, student_name, _ = _weighted(session)
    mine, _ = login(student_name)
    page = mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    assert "3.5 of 4 points" in page and "3 / 3" in page and "0.5 / 1" in page
    client, csrf = login(teacher.username)
    token = issue_token(session, teacher, name="t")
    session.commit()
    book = client.get(f"/api/v1/assignments/{assignment.id}/grades", headers={"Authorization": f"Bearer {token}"})
    total = book.get_json()["students"][0]["total"]
    assert (total["points"], total["max_points"], total["score"]) == (3.5, 4.0, 0.875)
    text = client.post(f"/teach/assignments/{assignment.id}/export/grades.csv", data={"csrf_token": csrf, "ids": "1"})
    (row,) = csv.DictReader(io.StringIO(text.get_data(as_text=True).lstrip("\ufeff")))
    assert (row["total"], row["max_points"], row["percent"]) == ("3.5", "4", "87.5")


def test_an_assignment_without_points_counts_each_exercise_as_one(session: Session) -> None:
    assignment, _, _ = make_taught_assignment(session)
    assert points_of(assignment) == {SHIFT: 1.0}


def _form(assignment: Assignment, token: str, **points: str) -> dict[str, str]:
    return {
        "csrf_token": token,
        "title_zh": "作业",
        "title_en": "Homework",
        "exercise_ids": SHIFT,
        "opens_at": "",
        "due_at": "",
        "attempts": "",
        "score_policy": "best",
        "answer_key_policy": "always",
        **{f"points.{key}": value for key, value in points.items()},
    }


@pytest.mark.parametrize("typed", ["0", "-1", "NaN", "1e3", "1001", "abc", "2.555"])
def test_bad_points_are_named_and_save_nothing(login: Login, session: Session, typed: str) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    reply = client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(assignment, token, **{SHIFT: typed}))
    page = reply.get_data(as_text=True)
    assert reply.status_code == 422 and f'id="err-points.{SHIFT}"' in page and "above 0 and at most 1000" in page
    session.expire_all()
    assert session.get_one(Assignment, assignment.id).exercise_points == {}


def test_points_are_saved_and_shown_again(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    reply = client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(assignment, token, **{SHIFT: "2.5"}))
    assert reply.status_code == 302
    session.expire_all()
    assert points_of(session.get_one(Assignment, assignment.id)) == {SHIFT: 2.5}
    assert 'value="2.5"' in client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)

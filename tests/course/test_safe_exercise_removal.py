"""Safe edits: removing an exercise that has grades from an assignment asks first, saying how many grades will
stop counting, and saves nothing until confirmed; one without grades saves at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session
from werkzeug.test import TestResponse

from grader.models import Assignment, Enrolment, EnrolmentRole, User
from tests.factories import make_graded, make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]
SHIFT, LOSS = "ch13.shift-pairs", "ch13.loss-average"


def _graded(session: Session, assignment: Assignment, user: User, exercise_id: str, attempts: int = 1) -> None:
    for _ in range(attempts):
        make_graded(session, assignment.id, user.id, exercise_id)


def _edit(client: FlaskClient, csrf: str, assignment: Assignment, exercises: list[str], **extra: str) -> TestResponse:
    return client.post(
        f"/teach/assignments/{assignment.id}/edit",
        data={
            "csrf_token": csrf,
            "title_zh": "作业",
            "title_en": "Homework",
            "exercise_ids": exercises,
            "score_policy": "best",
            "answer_key_policy": "after_due",
            **extra,
        },
    )


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", "removing these exercises makes 2 grades stop counting"),
        ("zh", "2 个已有成绩将不再计入总分"),
    ],
)
def test_removing_graded_exercises_asks_with_the_count_and_saves_nothing(
    login: Login, session: Session, lang: str, message: str
) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    other = make_user(session)
    session.add(Enrolment(course_id=assignment.course_id, user_id=other.id, role=EnrolmentRole.STUDENT))
    assignment.exercise_ids = [SHIFT, LOSS]
    session.commit()
    _graded(session, assignment, student, SHIFT, attempts=2)  # two attempts: one grade
    _graded(session, assignment, other, SHIFT)
    _graded(session, assignment, teacher, SHIFT)  # a teacher's try is no student's grade
    _graded(session, assignment, student, LOSS)  # kept: not counted
    client, csrf = login(teacher.username)
    client.set_cookie("lang", lang)
    asked = _edit(client, csrf, assignment, [LOSS])
    page = asked.get_data(as_text=True)
    assert asked.status_code == 409 and message in page and 'name="confirm_removal" value="yes"' in page
    session.expire_all()
    assert session.get(Assignment, assignment.id).exercise_ids == [SHIFT, LOSS]  # type: ignore[union-attr]
    confirmed = _edit(client, csrf, assignment, [LOSS], confirm_removal="yes")
    assert confirmed.status_code in (302, 303)
    session.expire_all()
    assert session.get(Assignment, assignment.id).exercise_ids == [LOSS]  # type: ignore[union-attr]


def test_removing_an_exercise_without_grades_saves_at_once(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    assignment.exercise_ids = [SHIFT, LOSS]
    session.commit()
    _graded(session, assignment, student, LOSS)
    client, csrf = login(teacher.username)
    saved = _edit(client, csrf, assignment, [LOSS])
    assert saved.status_code in (302, 303)
    session.expire_all()
    assert session.get(Assignment, assignment.id).exercise_ids == [LOSS]  # type: ignore[union-attr]


def test_a_bad_form_is_refused_before_the_question(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    _graded(session, assignment, student, SHIFT)
    client, csrf = login(teacher.username)
    refused = _edit(client, csrf, assignment, [])
    assert refused.status_code == 422 and "removal-confirm" not in refused.get_data(as_text=True)
    session.expire_all()
    assert session.get(Assignment, assignment.id).exercise_ids == [SHIFT]  # type: ignore[union-attr]

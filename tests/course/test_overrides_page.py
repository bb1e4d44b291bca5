"""The overrides page: a teacher sets the score that counts (an exercise or the total) with a reason; the student sees
the score, that the teacher set it, and why; bad input is named on the form and stores nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import OverrideLogEntry, Role, ScoreOverride
from tests.factories import EXERCISE, make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]


def _count(session: Session) -> tuple[int, int]:
    session.expire_all()
    return (
        session.scalar(select(func.count(ScoreOverride.id))) or 0,
        session.scalar(select(func.count(OverrideLogEntry.id))) or 0,
    )


def _post(client: FlaskClient, token: str, assignment_id: int, **fields: str) -> tuple[int, str]:
    reply = client.post(f"/teach/assignments/{assignment_id}/overrides", data={"csrf_token": token, **fields})
    return reply.status_code, reply.get_data(as_text=True)


def test_an_override_shows_to_the_student_with_its_reason(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    status, _ = _post(
        client,
        token,
        assignment.id,
        student=str(student.id),
        exercise_id=EXERCISE,
        score="90",
        reason="marked by hand after the oral",
    )
    assert status == 302
    page = client.get(f"/teach/assignments/{assignment.id}/overrides").get_data(as_text=True)
    assert f'data-student="{student.username}"' in page and "marked by hand after the oral" in page
    assert f"user:{teacher.username}" in page  # the log says who
    mine, _ = login(student.username)
    own = mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    assert "90%" in own and "set by your teacher" in own and "Reason: marked by hand after the oral" in own
    exercise = mine.get(f"/assignments/{assignment.id}/exercises/{EXERCISE}").get_data(as_text=True)
    assert 'id="counted-score"' in exercise and "set by your teacher" in exercise
    mine.set_cookie("lang", "zh")
    assert "教师已改分" in mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)


def test_a_total_override_is_the_students_percent(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    assert (
        _post(client, token, assignment.id, student=str(student.id), exercise_id="", score="75", reason="project")[0]
        == 302
    )
    mine, _ = login(student.username)
    own = mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    assert 'id="total-override"' in own and "75%" in own
    cleared = client.post(
        f"/teach/assignments/{assignment.id}/overrides/{student.id}/clear",
        data={"csrf_token": token, "exercise_id": ""},
    )
    assert cleared.status_code == 302 and _count(session) == (0, 2)


BAD = [
    pytest.param({"score": "101"}, "score", "from 0 to 100", id="over-the-maximum"),
    pytest.param({"score": "NaN"}, "score", "from 0 to 100", id="nan"),
    pytest.param({"score": "-1"}, "score", "from 0 to 100", id="negative"),
    pytest.param({"score": ""}, "score", "from 0 to 100", id="empty"),
    pytest.param({"reason": ""}, "reason", "Give a reason", id="no-reason"),
    pytest.param({"exercise_id": "ch09.rnn-step"}, "exercise_id", "Choose an exercise", id="not-in-assignment"),
    pytest.param({"student": "abc"}, "student", "Choose a student", id="no-student"),
]


@pytest.mark.parametrize(("fields", "field", "message"), BAD)
def test_bad_input_is_named_and_stores_nothing(
    login: Login, session: Session, fields: dict[str, str], field: str, message: str
) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    body = {"student": str(student.id), "exercise_id": EXERCISE, "score": "50", "reason": "why", **fields}
    status, page = _post(client, token, assignment.id, **body)
    assert status == 422 and f'id="err-{field}"' in page and message in page
    assert _count(session) == (0, 0)


@pytest.mark.parametrize("who", ["student", "outsider"])
def test_only_the_courses_teachers_may_override(login: Login, session: Session, who: str) -> None:
    assignment, _, student = make_taught_assignment(session)
    username = student.username if who == "student" else make_user(session, Role.TEACHER).username
    client, token = login(username)
    assert client.get(f"/teach/assignments/{assignment.id}/overrides").status_code == 404
    assert (
        _post(client, token, assignment.id, student=str(student.id), exercise_id=EXERCISE, score="100", reason="x")[0]
        == 404
    )
    assert _count(session) == (0, 0)

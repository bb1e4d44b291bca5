"""The extensions page: a teacher gives a student a later due date (typed in the course's zone) or extra attempts;
the student's pages show their own due date and attempts; bad input is named on the form and stores nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Extension, Role, User, utcnow
from grader.teacher.zones import form_time
from tests.factories import make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]
ZONE = "Asia/Shanghai"


def _course(session: Session, assignment: Assignment, **settings: object) -> tuple[Assignment, User]:
    """The assignment past due in a Shanghai course, with a second student; (assignment, that student)."""
    course = session.get_one(Course, assignment.course_id)
    course.time_zone = ZONE
    for name, value in settings.items():
        setattr(assignment, name, value)
    other = make_user(session)
    session.add(Enrolment(course_id=course.id, user_id=other.id, role=EnrolmentRole.STUDENT))
    session.commit()
    return assignment, other


def _extensions(session: Session) -> int:
    session.expire_all()
    return session.scalar(select(func.count(Extension.id))) or 0


def _post(client: FlaskClient, token: str, assignment: Assignment, **fields: str) -> tuple[int, str]:
    reply = client.post(f"/teach/assignments/{assignment.id}/extensions", data={"csrf_token": token, **fields})
    return reply.status_code, reply.get_data(as_text=True)


def test_an_extension_moves_one_students_due_date_on_their_pages(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    assignment, other = _course(session, assignment, due_at=utcnow() - timedelta(hours=1), attempts_allowed=2)
    new_due = utcnow().replace(second=0, microsecond=0) + timedelta(days=3)
    client, token = login(teacher.username)
    status, _ = _post(
        client,
        token,
        assignment,
        student=str(student.id),
        due_at=form_time(new_due, ZONE),
        extra_attempts="1",
        reason="hospital",
    )
    assert status == 302
    page = client.get(f"/teach/assignments/{assignment.id}/extensions").get_data(as_text=True)
    assert f'data-student="{student.username}"' in page and "hospital" in page and "(Asia/Shanghai, UTC+8)" in page
    mine, _ = login(student.username)
    own = mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    expected = session.get_one(Course, assignment.course_id).show_time(new_due)
    assert expected in own and 'id="extended-due"' in own and "extended for you" in own
    assert "Closed" not in own and "3 of 3 attempts left" in own and "(including 1 extra)" in own
    exercise = mine.get(f"/assignments/{assignment.id}/exercises/ch13.shift-pairs").get_data(as_text=True)
    assert expected in exercise and 'name="answer.pairs"' in exercise
    theirs, _ = login(other.username)
    their_page = theirs.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    assert expected not in their_page and 'id="extended-due"' not in their_page and "Closed" in their_page


def test_the_page_is_in_chinese_too(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    client.set_cookie(LANG_COOKIE, "zh")
    status, page = _post(client, token, assignment, student=str(student.id), due_at="2000-01-01T00:00")
    assert status == 422 and "新的截止时间必须晚于作业的截止时间" in page and "延期与额外次数" in page


BAD_FORMS = [
    pytest.param({"due_at": "2000-01-01T00:00"}, "due_at", "must be after the assignment", id="before-due"),
    pytest.param({"due_at": "tomorrow"}, "due_at", "not a date and time", id="not-a-time"),
    pytest.param({"due_at": "9999-01-01T00:00"}, "due_at", "not a date and time", id="year-out-of-range"),
    pytest.param({"extra_attempts": "-1"}, "extra_attempts", "whole number from 0 to 1000", id="negative"),
    pytest.param({"extra_attempts": "1.5"}, "extra_attempts", "whole number", id="fraction"),
    pytest.param({"extra_attempts": "NaN"}, "extra_attempts", "whole number", id="nan"),
    pytest.param({"extra_attempts": "5000"}, "extra_attempts", "whole number", id="too-many"),
    pytest.param({}, "due_at", "Give a later due date, extra attempts, or both", id="nothing"),
    pytest.param({"student": "", "extra_attempts": "1"}, "student", "Choose a student", id="no-student"),
    pytest.param({"student": "teacher", "extra_attempts": "1"}, "student", "Choose a student", id="the-teacher"),
    pytest.param({"extra_attempts": "1", "reason": "x" * 501}, "reason", "at most 500", id="long-reason"),
]


@pytest.mark.parametrize(("fields", "field", "message"), BAD_FORMS)
def test_bad_input_is_named_on_the_form_and_stores_nothing(
    login: Login, session: Session, fields: dict[str, str], field: str, message: str
) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    assignment.attempts_allowed = 2
    session.commit()
    client, token = login(teacher.username)
    chosen = {"student": str(student.id), **fields}
    if chosen["student"] == "teacher":
        chosen["student"] = str(teacher.id)
    status, page = _post(client, token, assignment, **chosen)
    assert status == 422
    assert f'id="err-{field}"' in page and message in page and "Traceback" not in page
    assert _extensions(session) == 0


def test_extra_attempts_on_unlimited_attempts_are_refused(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    status, page = _post(client, token, assignment, student=str(student.id), extra_attempts="2")
    assert status == 422 and 'id="err-extra_attempts"' in page and "unlimited attempts" in page
    assert _extensions(session) == 0


def test_removing_an_extension_gives_the_assignments_terms_back(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    assignment.attempts_allowed = 1
    session.commit()
    client, token = login(teacher.username)
    assert _post(client, token, assignment, student=str(student.id), extra_attempts="2")[0] == 302
    assert _extensions(session) == 1
    cleared = client.post(
        f"/teach/assignments/{assignment.id}/extensions/{student.id}/clear", data={"csrf_token": token}
    )
    assert cleared.status_code == 302 and _extensions(session) == 0
    mine, _ = login(student.username)
    assert "1 of 1 attempts left" in mine.get(f"/assignments/{assignment.id}").get_data(as_text=True)


@pytest.mark.parametrize("who", ["student", "outsider"])
def test_only_the_courses_teachers_see_the_page(login: Login, session: Session, who: str) -> None:
    assignment, _, student = make_taught_assignment(session)
    username = student.username if who == "student" else make_user(session, Role.TEACHER).username
    client, token = login(username)
    assert client.get(f"/teach/assignments/{assignment.id}/extensions").status_code == 404
    assert _post(client, token, assignment, student=str(student.id), extra_attempts="1")[0] == 404
    assert _extensions(session) == 0


def test_the_grades_export_gives_each_students_own_due_date(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    assignment, other = _course(session, assignment, attempts_allowed=2)
    new_due = utcnow().replace(second=0, microsecond=0) + timedelta(days=5)
    client, token = login(teacher.username)
    assert (
        _post(client, token, assignment, student=str(student.id), due_at=form_time(new_due, ZONE), extra_attempts="2")[
            0
        ]
        == 302
    )
    text = client.post(f"/teach/assignments/{assignment.id}/export/grades.csv", data={"csrf_token": token, "ids": "1"})
    rows = {row["username"]: row for row in csv.DictReader(io.StringIO(text.get_data(as_text=True).lstrip("\ufeff")))}
    assert datetime.fromisoformat(rows[student.username]["due_at"]) == new_due
    assert rows[student.username]["extra_attempts"] == "2"
    session.refresh(assignment)
    assert datetime.fromisoformat(rows[other.username]["due_at"]) == assignment.due_at
    assert rows[other.username]["extra_attempts"] == "0"

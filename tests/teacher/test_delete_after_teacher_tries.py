"""A teacher trying an assignment out does not stop its deletion; only students' work does. The teacher's tries
are kept, detached from the deleted assignment, and the confirm page says so."""

from __future__ import annotations

from collections.abc import Callable

from flask.testing import FlaskClient
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from grader.models import Assignment, Enrolment, EnrolmentRole, Role, Submission, User
from tests.factories import BOOK_ANSWER, EXERCISE, make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]


def _try(client: FlaskClient, token: str, assignment: Assignment) -> None:
    """Submit the book answer on the exercise page, as anyone enrolled in the course can."""
    answer = {"csrf_token": token, **{f"answer.{name}": value for name, value in BOOK_ANSWER.items()}}
    response = client.post(f"/assignments/{assignment.id}/exercises/{EXERCISE}", data=answer)
    assert response.status_code in (302, 303), response.get_data(as_text=True)[:500]


def _submissions_of(session: Session, user: User) -> list[Submission]:
    session.expire_all()
    return list(session.scalars(select(Submission).where(Submission.user_id == user.id)))


def test_a_teachers_own_try_does_not_block_deleting_and_is_kept(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    assignment_id, course_id = assignment.id, assignment.course_id
    client, token = login(teacher.username)
    _try(client, token, assignment)
    dashboard = client.get(f"/teach/courses/{course_id}").get_data(as_text=True)
    assert '<dd class="stat-attempted">0</dd>' in dashboard  # no student attempted it
    url = f"/teach/assignments/{assignment_id}/delete"
    asked = client.post(url, data={"csrf_token": token})
    page = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "Yes, delete it" in page
    assert "Students have already submitted" not in page and "No student has submitted" in page
    assert 'id="confirm-note"' in page and "The one try a teacher made on this assignment is kept" in page
    done = client.post(url, data={"csrf_token": token, "confirm": "yes"})
    assert done.status_code == 302 and done.headers["Location"].endswith(f"/teach/courses/{course_id}")
    session.expire_all()
    assert session.get(Assignment, assignment_id) is None
    (kept,) = _submissions_of(session, teacher)
    assert kept.assignment_id is None and kept.exercise_id == EXERCISE  # ON DELETE SET NULL: detached, not lost
    history = client.get("/submissions")
    assert history.status_code == 200 and f"/submissions/{kept.id}" in history.get_data(as_text=True)


def test_the_note_counts_every_teachers_tries_in_chinese(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    colleague = make_user(session, Role.TEACHER)
    session.add(Enrolment(course_id=assignment.course_id, user_id=colleague.id, role=EnrolmentRole.TEACHER))
    session.commit()
    client, token = login(teacher.username)
    _try(client, token, assignment)
    _try(client, token, assignment)
    colleague_client, colleague_token = login(colleague.username)
    _try(colleague_client, colleague_token, assignment)
    client.set_cookie("lang", "zh")
    page = client.post(f"/teach/assignments/{assignment.id}/delete", data={"csrf_token": token}).get_data(as_text=True)
    assert "还没有学生向这个作业提交过答案" in page and "教师在这个作业里的 3 次试做提交会保留" in page


def test_no_note_without_tries(login: Login, session: Session) -> None:
    assignment, teacher, _ = make_taught_assignment(session)
    client, token = login(teacher.username)
    page = client.post(f"/teach/assignments/{assignment.id}/delete", data={"csrf_token": token}).get_data(as_text=True)
    assert "No student has submitted" in page and 'id="confirm-note"' not in page


def test_a_students_submission_still_blocks_deleting(login: Login, session: Session) -> None:
    assignment, teacher, student = make_taught_assignment(session)
    client, token = login(teacher.username)
    _try(client, token, assignment)
    student_client, student_token = login(student.username)
    _try(student_client, student_token, assignment)
    for data in ({"csrf_token": token}, {"csrf_token": token, "confirm": "yes"}):
        response = client.post(f"/teach/assignments/{assignment.id}/delete", data=data)
        assert response.status_code == 409 and "Students have already submitted" in response.get_data(as_text=True)
    session.expire_all()
    assert session.get(Assignment, assignment.id) is not None
    assert [s.assignment_id for s in _submissions_of(session, teacher)] == [assignment.id]


def test_a_removed_students_submission_still_blocks_deleting(login: Login, session: Session) -> None:
    """Students' work is anyone's but the teachers': taking a student off the roster does not free the assignment."""
    assignment, teacher, student = make_taught_assignment(session)
    student_client, student_token = login(student.username)
    _try(student_client, student_token, assignment)
    session.execute(delete(Enrolment).where(Enrolment.user_id == student.id))
    session.commit()
    client, token = login(teacher.username)
    response = client.post(f"/teach/assignments/{assignment.id}/delete", data={"csrf_token": token, "confirm": "yes"})
    assert response.status_code == 409

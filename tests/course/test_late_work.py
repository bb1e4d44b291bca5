"""Late work: taken after the due date until a hard close, its counted score lowered by a percent per started day or
capped, never the engine's verdict; marked late on the student's pages, the API and the grades export; bad late
settings are named on the assignment form and change nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.grading import policy
from grader.grading.refusals import SubmissionRejected
from grader.models import Assignment, Submission, User, utcnow
from grader.security import issue_token
from tests.factories import EXERCISE, make_taught_assignment, rebuild_progress

Login = Callable[[str], tuple[FlaskClient, str]]


def _late_assignment(session: Session, **late: object) -> tuple[Assignment, User, User]:
    """An assignment due two days ago taking late work for three more days; (assignment, teacher, student)."""
    assignment, teacher, student = make_taught_assignment(session)
    now = utcnow()
    assignment.opens_at, assignment.due_at = now - timedelta(days=9), now - timedelta(days=2)
    assignment.late_until = now + timedelta(days=1)
    for name, value in late.items():
        setattr(assignment, name, value)
    session.commit()
    return assignment, teacher, student


def _graded(session: Session, assignment: Assignment, student: User, score: float, at: datetime) -> Submission:
    row = Submission(
        user_id=student.id,
        assignment_id=assignment.id,
        exercise_id=EXERCISE,
        seed=0,
        lang="en",
        raw_answer={"pairs": "x"},
        status="graded",
        score=score,
        engine_version="1.0.0",
        created_at=at,
    )
    session.add(row)
    rebuild_progress(session)  # commits: the rows the pipeline would have kept
    return row


@pytest.mark.parametrize(
    ("late", "score", "days_late", "counted"),
    [
        pytest.param({"late_penalty_per_day": 10.0}, 1.0, 1.5, 0.8, id="10-percent-per-started-day"),
        pytest.param({"late_penalty_per_day": 10.0}, 0.5, 0.01, 0.45, id="a-minute-late-is-a-day"),
        pytest.param({"late_penalty_per_day": 60.0}, 1.0, 1.9, 0.0, id="never-below-zero"),
        pytest.param({"late_cap": 80.0}, 1.0, 1.0, 0.8, id="capped-at-80"),
        pytest.param({"late_cap": 80.0}, 0.5, 1.0, 0.5, id="under-the-cap-unchanged"),
        pytest.param({"late_cap": 80.0, "late_penalty_per_day": 25.0}, 1.0, 1.0, 0.75, id="both"),
    ],
)
def test_the_penalty_lowers_the_counted_score_not_the_verdict(
    session: Session, late: dict[str, float], score: float, days_late: float, counted: float
) -> None:
    assignment, _, student = _late_assignment(session, **late)
    assert assignment.due_at is not None
    row = _graded(session, assignment, student, score, assignment.due_at + timedelta(days=days_late))
    progress = policy.assignment_progress(session, student, assignment)[0]
    assert progress.score == pytest.approx(counted)
    assert progress.late is not None and progress.late.days == int(-(-days_late // 1))
    session.refresh(row)
    assert row.score == score  # the engine's verdict is stored as it was
    results = policy.assignment_results(session, assignment, [student.id])
    assert results[(student.id, EXERCISE)].score == pytest.approx(counted)
    assert results[(student.id, EXERCISE)].late


def test_best_of_counted_values_an_on_time_answer_can_beat_a_late_better_one(session: Session) -> None:
    assignment, _, student = _late_assignment(session, late_penalty_per_day=50.0)
    assert assignment.due_at is not None
    _graded(session, assignment, student, 0.7, assignment.due_at - timedelta(hours=1))
    _graded(session, assignment, student, 1.0, assignment.due_at + timedelta(hours=3))
    progress = policy.assignment_progress(session, student, assignment)[0]
    assert progress.score == pytest.approx(0.7) and progress.late is None
    assert policy.assignment_results(session, assignment, [student.id])[(student.id, EXERCISE)].score == 0.7


def test_late_work_is_taken_until_the_close_and_the_key_waits_for_it(session: Session) -> None:
    assignment, _, student = _late_assignment(session)
    now = utcnow()
    policy.check_can_submit(session, student.id, assignment, EXERCISE, now)  # late, but taken
    assert not policy.answer_key_visible(session, student.id, assignment, EXERCISE, now)
    assert assignment.late_until is not None
    after = assignment.late_until + timedelta(minutes=1)
    with pytest.raises(SubmissionRejected) as refused:
        policy.check_can_submit(session, student.id, assignment, EXERCISE, after)
    assert refused.value.code == "past_due"
    assert policy.answer_key_visible(session, student.id, assignment, EXERCISE, after)


def test_no_late_policy_refuses_after_the_due_date_as_before(session: Session) -> None:
    assignment, _, student = _late_assignment(session, late_until=None)
    with pytest.raises(SubmissionRejected):
        policy.check_can_submit(session, student.id, assignment, EXERCISE, utcnow())


def test_the_student_sees_the_late_mark_and_penalty_with_the_score(login: Login, session: Session) -> None:
    assignment, _, student = _late_assignment(session, late_penalty_per_day=10.0)
    assert assignment.due_at is not None
    _graded(session, assignment, student, 1.0, assignment.due_at + timedelta(hours=30))
    client, _ = login(student.username)
    page = client.get(f"/assignments/{assignment.id}").get_data(as_text=True)
    assert "Late work accepted" in page and "10% off per day late" in page
    assert "80%" in page and "2 d late −20%" in page
    exercise = client.get(f"/assignments/{assignment.id}/exercises/{EXERCISE}").get_data(as_text=True)
    assert 'id="counted-score"' in exercise and "2 d late −20%" in exercise and 'name="answer.pairs"' in exercise
    client.set_cookie("lang", "zh")
    assert "迟交 2 天 −20%" in client.get(f"/assignments/{assignment.id}").get_data(as_text=True)


def test_the_api_and_the_grades_export_count_the_penalty(login: Login, session: Session) -> None:
    assignment, teacher, student = _late_assignment(session, late_cap=80.0)
    assert assignment.due_at is not None
    _graded(session, assignment, student, 1.0, assignment.due_at + timedelta(hours=1))
    token = issue_token(session, teacher, name="t")
    session.commit()
    client, csrf = login(teacher.username)
    auth = {"Authorization": f"Bearer {token}"}
    book = client.get(f"/api/v1/assignments/{assignment.id}/grades", headers=auth).get_json()
    assert book["students"][0]["exercises"][0]["score"] == pytest.approx(0.8)
    assert book["assignment"]["late_cap"] == 80.0
    progress = client.get(f"/api/v1/assignments/{assignment.id}/progress?student={student.id}", headers=auth).get_json()
    item = progress["exercises"][0]
    assert item["score"] == pytest.approx(0.8) and item["best_score"] == 1.0 and item["late"]["days"] == 1
    text = client.post(f"/teach/assignments/{assignment.id}/export/grades.csv", data={"csrf_token": csrf, "ids": "1"})
    rows = list(csv.DictReader(io.StringIO(text.get_data(as_text=True).lstrip("\ufeff"))))
    assert float(rows[0][EXERCISE]) == pytest.approx(0.8)


def _form(assignment: Assignment, token: str, **late: str) -> dict[str, str]:
    """The edit form as the page fills it, with ``late`` fields typed over it (times in UTC: the course's zone)."""
    assert assignment.due_at is not None
    return {
        "csrf_token": token,
        "title_zh": "作业",
        "title_en": "Homework",
        "exercise_ids": EXERCISE,
        "opens_at": "",
        "due_at": assignment.due_at.strftime("%Y-%m-%dT%H:%M"),
        "attempts": "",
        "score_policy": "best",
        "answer_key_policy": "after_due",
        **late,
    }


BAD_LATE = [
    pytest.param(
        {"late_until": "2001-01-01T00:00"}, "late_until", "must close after the due date", id="close-before-due"
    ),
    pytest.param({"late_per_day": "101"}, "late_per_day", "from 0 to 100", id="penalty-over-100"),
    pytest.param({"late_per_day": "NaN"}, "late_per_day", "from 0 to 100", id="nan"),
    pytest.param({"late_per_day": "-5"}, "late_per_day", "from 0 to 100", id="negative"),
    pytest.param({"late_cap": "1e2"}, "late_cap", "from 0 to 100", id="exponent"),
    pytest.param({"late_cap": "120"}, "late_cap", "from 0 to 100", id="cap-over-100"),
    pytest.param({"late_until": "", "late_per_day": "10"}, "late_until", "Set when late work closes", id="no-close"),
    pytest.param({"due_at": "", "late_until": "2099-01-01T00:00"}, "late_until", "without a due date", id="no-due"),
]


@pytest.mark.parametrize(("fields", "field", "message"), BAD_LATE)
def test_bad_late_settings_are_named_and_change_nothing(
    login: Login, session: Session, fields: dict[str, str], field: str, message: str
) -> None:
    assignment, teacher, _ = _late_assignment(session, late_until=None)
    client, token = login(teacher.username)
    body = {**_form(assignment, token, late_until="2099-01-01T00:00"), **fields}
    reply = client.post(f"/teach/assignments/{assignment.id}/edit", data=body)
    page = reply.get_data(as_text=True)
    assert reply.status_code == 422 and f'id="err-{field}"' in page and message in page
    session.expire_all()
    assert session.get_one(Assignment, assignment.id).late_until is None


def test_a_late_policy_is_saved_and_shown_again_on_the_form(login: Login, session: Session) -> None:
    assignment, teacher, _ = _late_assignment(session, late_until=None)
    client, token = login(teacher.username)
    body = _form(assignment, token, late_until="2099-01-01T00:00", late_per_day="12.5", late_cap="80")
    assert client.post(f"/teach/assignments/{assignment.id}/edit", data=body).status_code == 302
    session.expire_all()
    saved = session.get_one(Assignment, assignment.id)
    assert (saved.late_penalty_per_day, saved.late_cap) == (12.5, 80.0)
    assert saved.late_until is not None and saved.late_until.year == 2099
    form = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'value="12.5"' in form and 'value="80"' in form and 'value="2099-01-01T00:00"' in form


def test_after_the_close_attempts_say_closed_never_how_many_are_left(login: Login, session: Session) -> None:
    assignment, _, student = _late_assignment(session, attempts_allowed=2)
    assignment.late_until = utcnow() - timedelta(hours=1)
    session.commit()
    client, _ = login(student.username)
    for url in (f"/assignments/{assignment.id}", f"/assignments/{assignment.id}/exercises/{EXERCISE}", "/courses"):
        page = client.get(url).get_data(as_text=True)
        assert 'class="attempts-closed"' in page and "2 of 2 attempts left" not in page, url

"""A teacher enrolled as a student in another course is a student there: no seed, no early key, no early variant.

As `grader course enrol --code A --username teacher_b --role student` sets it up: teacher_b teaches course B only.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask import Flask

from exercises import api as engine
from grader.extensions import get_db
from grader.models import Assignment, Enrolment, EnrolmentRole, utcnow

from .support import Api, assert_error

COST = "ch09.attention-cost"  # set, in course A, only by the quiz below
SHIFT = "ch13.shift-pairs"  # set by every assignment of the school (course A's and course B's)
CONCEPT = "l03.concept-check"  # read per variant
ANSWER = {"pairs": "100", "causal_pairs": "50", "growth": "4"}


def _enrol_as_student(api: Api, who: str) -> None:
    """``who`` joins course A as a student."""
    with get_db(api.client.application).session() as session:
        session.add(
            Enrolment(course_id=api.school.course_a, user_id=api.school.user_ids[who], role=EnrolmentRole.STUDENT)
        )
        session.commit()


def _quiz(api: Api) -> int:
    """Course A's quiz over COST: open, due in a week, answer key after the due date."""
    now = utcnow()
    with get_db(api.client.application).session() as session:
        quiz = Assignment(
            course_id=api.school.course_a,
            title_zh="quiz",
            title_en="quiz",
            exercise_ids=[COST],
            opens_at=now - timedelta(days=1),
            due_at=now + timedelta(days=7),
            answer_key_policy="after_due",
        )
        session.add(quiz)
        session.commit()
        return quiz.id


def _update(app: Flask, assignment_id: int, **settings: Any) -> None:
    """Change an assignment's settings."""
    with get_db(app).session() as session:
        assignment = session.get_one(Assignment, assignment_id)
        for name, value in settings.items():
            setattr(assignment, name, value)
        session.commit()


@pytest.fixture
def quiz(api: Api) -> int:
    """teacher_b, a student of course A, and course A's quiz."""
    _enrol_as_student(api, "teacher_b")
    return _quiz(api)


def _submit(api: Api, who: str, **extra: Any) -> Any:
    """POST a readable COST answer as ``who``."""
    return api.post("/submissions", who, {"exercise_id": COST, "answer": ANSWER, "lang": "en", **extra})


def test_a_seed_with_an_assignment_of_a_course_they_study_is_refused_and_costs_no_attempt(api: Api, quiz: int) -> None:
    error = assert_error(_submit(api, "teacher_b", assignment_id=quiz, seed=0), 403, "seed_not_allowed", "seed")
    assert "seed" in error["message"]
    assert api.get("/submissions", "admin").get_json()["total"] == 0
    progress = api.get(f"/assignments/{quiz}/progress", "teacher_b").get_json()
    assert progress["exercises"][0]["attempts_used"] == 0
    # An assignment that does not exist is refused alike: the refusal does not tell which ids exist.
    assert_error(_submit(api, "teacher_b", assignment_id=quiz + 1000, seed=0), 403, "seed_not_allowed", "seed")
    # The course's own teacher still may, as before.
    assert _submit(api, "teacher", assignment_id=quiz, seed=0).status_code == 202


def test_their_submission_shows_neither_seed_nor_a_key_the_rule_holds_back(api: Api, quiz: int) -> None:
    created = _submit(api, "teacher_b", assignment_id=quiz)
    assert created.status_code == 202, created.get_json()
    mine = created.get_json()
    assert "seed" not in mine and "answer_key" not in mine
    again = api.get(f"/submissions/{mine['id']}", "teacher_b").get_json()
    assert "seed" not in again and "answer_key" not in again
    [row] = api.get("/submissions", "teacher_b").get_json()["submissions"]
    assert row["id"] == mine["id"] and "seed" not in row
    # Course A's teacher and the admin see it as staff, as they see every student's.
    for who in ("teacher", "admin"):
        staff_view = api.get(f"/submissions/{mine['id']}", who).get_json()
        assert staff_view["answer_key"] == engine.answer_key(COST, staff_view["seed"])
        assert api.get("/submissions", who).get_json()["submissions"][0]["seed"] == staff_view["seed"]
    # Once the key rule allows (past due), the key shows, as it does to students; the seed never does.
    _update(api.client.application, quiz, due_at=utcnow() - timedelta(minutes=1))
    later = api.get(f"/submissions/{mine['id']}", "teacher_b").get_json()
    assert "answer_key" in later and "seed" not in later


def test_their_own_variant_is_a_students(api: Api, quiz: int) -> None:
    variant = api.get(f"/exercises/{COST}/variant", "teacher_b")
    assert variant.status_code == 200 and "seed" not in variant.get_json()
    _update(api.client.application, quiz, opens_at=utcnow() + timedelta(days=2))
    assert_error(api.get(f"/exercises/{COST}/variant?lang=en", "teacher_b"), 403, "not_open", "exercise_id")
    # The teacher of course A studies nothing there: their variant comes with its seed, open or not.
    teacher = api.get(f"/exercises/{COST}/variant", "teacher").get_json()
    assert teacher == engine.variant(COST, teacher["seed"], "zh")
    # An exercise no course of theirs sets as a student: theirs to see as a teacher, seed included.
    rnn = api.get("/exercises/ch09.rnn-step/variant", "teacher_b").get_json()
    assert rnn == engine.variant("ch09.rnn-step", rnn["seed"], "zh")


def test_a_seedless_try_outside_what_they_study_would_be_their_students_variant(api: Api, quiz: int) -> None:
    # Without a seed, a teacher's try is graded on their own variant: a student's where they study the exercise.
    assert_error(_submit(api, "teacher_b"), 422, "missing_field", "seed")
    shift = {
        "exercise_id": SHIFT,
        "answer": {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"},
    }
    other = api.school.other_assignment  # course B, which teacher_b teaches, sets SHIFT too
    assert_error(api.post("/submissions", "teacher_b", shift | {"assignment_id": other}), 422, "missing_field", "seed")
    # With a seed, as a teacher: as before.
    practice = _submit(api, "teacher_b", seed=3).get_json()
    assert practice["seed"] == 3 and practice["answer_key"] == engine.answer_key(COST, 3)
    assert api.post("/submissions", "teacher_b", shift | {"assignment_id": other, "seed": 0}).status_code == 202


def test_the_live_preview_with_their_assignment_reads_as_a_students(api: Api, quiz: int) -> None:
    _update(api.client.application, quiz, exercise_ids=[CONCEPT], opens_at=utcnow() + timedelta(days=2))
    body = {"exercise_id": CONCEPT, "answer": {"choices": "a"}, "lang": "en"}
    assert_error(api.post("/validate", "teacher_b", body | {"assignment_id": quiz, "seed": 0}), 403, "not_open")
    assert api.post("/validate", "teacher_b", body).status_code == 200  # no assignment: a teacher's, as before
    assert api.post("/validate", "teacher", body | {"assignment_id": quiz, "seed": 0}).status_code == 200

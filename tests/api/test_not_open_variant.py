"""A student's own variant stays hidden while every assignment of theirs that sets the exercise is still to open."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from sqlalchemy import func, select

from exercises import api as engine
from grader.extensions import get_db
from grader.models import Assignment, VariantAssignment, utcnow

from .support import Api, assert_error, set_exercises

RNN = "ch09.rnn-step"  # set, below, only by the school's not-yet-open assignment
SHIFT = "ch13.shift-pairs"  # set by the open, closed, future and practice assignments alike


def _only_in_future(api: Api) -> None:
    set_exercises(api.client.application, api.school.future_assignment, [RNN])


def _variant_rows(app: Flask) -> int:
    with get_db(app).session() as session:
        return session.scalar(select(func.count(VariantAssignment.id))) or 0


def test_student_is_refused_a_variant_set_only_by_assignments_not_open_yet(api: Api) -> None:
    _only_in_future(api)
    before = _variant_rows(api.client.application)
    error = assert_error(api.get(f"/exercises/{RNN}/variant?lang=en", "alice"), 403, "not_open", "exercise_id")
    with get_db(api.client.application).session() as session:
        opens = session.get_one(Assignment, api.school.future_assignment).opens_at
    assert opens is not None and f"{opens:%Y-%m-%d %H:%M} UTC" in error["message"]
    assert "not open yet" in error["message"]
    chinese = assert_error(api.get(f"/exercises/{RNN}/variant", "bob"), 403, "not_open")
    assert "尚未开放" in chinese["message"]
    # A teacher's student-role token sees what a student would.
    assert_error(api.get(f"/exercises/{RNN}/variant", "teacher_as_student"), 403, "not_open")
    assert _variant_rows(api.client.application) == before  # no seed was fixed for the refused callers


def test_teachers_and_admins_still_get_their_variant(api: Api) -> None:
    _only_in_future(api)
    for who in ("teacher", "admin"):
        response = api.get(f"/exercises/{RNN}/variant", who)
        assert response.status_code == 200
        assert response.get_json() == engine.variant(RNN, response.get_json()["seed"], "zh")


def test_an_open_or_past_assignment_setting_the_same_exercise_shows_it(api: Api) -> None:
    _only_in_future(api)
    app = api.client.application
    set_exercises(app, api.school.closed_assignment, [RNN])
    assert api.get(f"/exercises/{RNN}/variant", "alice").status_code == 200
    set_exercises(app, api.school.closed_assignment, [SHIFT])
    set_exercises(app, api.school.open_assignment, [SHIFT, RNN])
    variant = api.get(f"/exercises/{RNN}/variant", "alice").get_json()
    assert "seed" not in variant and variant["exercise_id"] == RNN
    # The school's future assignment sets shift-pairs too, alongside open ones: as before.
    assert api.get(f"/exercises/{SHIFT}/variant", "alice").status_code == 200


def test_the_variant_shows_once_the_assignment_opens(api: Api) -> None:
    _only_in_future(api)
    assert_error(api.get(f"/exercises/{RNN}/variant", "alice"), 403, "not_open")
    with get_db(api.client.application).session() as session:
        session.get_one(Assignment, api.school.future_assignment).opens_at = utcnow() - timedelta(minutes=1)
        session.commit()
    assert api.get(f"/exercises/{RNN}/variant", "alice").status_code == 200


def test_students_of_other_courses_are_not_held_back_by_it(api: Api) -> None:
    _only_in_future(api)
    # carol's course does not set the exercise at all: she has no variant of it (404), not one an opening date of
    # another course holds back (403); once her own course sets it, she sees it.
    assert_error(api.get(f"/exercises/{RNN}/variant", "carol"), 404, "not_found", "exercise_id")
    set_exercises(api.client.application, api.school.other_assignment, [RNN])
    assert api.get(f"/exercises/{RNN}/variant", "carol").status_code == 200


def test_the_refusal_is_documented(api: Api) -> None:
    operation = api.get("/openapi.json", None).get_json()["paths"]["/api/v1/exercises/{exercise_id}/variant"]["get"]
    assert "403" in operation["responses"] and "not_open" in operation["responses"]["403"]["description"]


CONCEPT = "l03.concept-check"  # read per variant: its number of items differs between variants


def test_the_live_preview_does_not_read_on_a_variant_not_open_yet(api: Api) -> None:
    set_exercises(api.client.application, api.school.future_assignment, [CONCEPT])
    body = {"exercise_id": CONCEPT, "answer": {"choices": "a"}, "lang": "en"}
    assert_error(api.post("/validate", "alice", body), 403, "not_open", "exercise_id")
    assert api.post("/validate", "teacher", body).status_code == 200  # staff read without a variant, as before


def test_an_unreadable_answer_to_an_assignment_not_open_yet_gets_the_refusal_not_a_reading(api: Api) -> None:
    # The reading's errors are made on the student's variant (e.g. "expected 7 answers"): before the assignment
    # opens, the refusal comes first.
    set_exercises(api.client.application, api.school.future_assignment, [CONCEPT])
    body = {
        "exercise_id": CONCEPT,
        "answer": {"choices": "a"},
        "lang": "en",
        "assignment_id": api.school.future_assignment,
    }
    error = assert_error(api.post("/submissions", "alice", body), 403, "not_open")
    assert "not open" in error["message"]
    past = dict(body, assignment_id=api.school.closed_assignment)
    set_exercises(api.client.application, api.school.closed_assignment, [CONCEPT])
    assert_error(api.post("/submissions", "alice", past), 403, "past_due")
    open_one = dict(body, assignment_id=api.school.practice_assignment)
    set_exercises(api.client.application, api.school.practice_assignment, [CONCEPT])
    assert_error(api.post("/submissions", "alice", open_one), 422, "invalid_answer")  # open: the reading, as before

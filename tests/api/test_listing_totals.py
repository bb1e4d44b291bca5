"""The submission listing's ``total`` and rows, under every filter combination the API accepts, equal a plain
count and a plain query of the submissions, for callers who see everything (teacher, admin) and one who sees only
their own (a student): after inserts, grades (to every final status, and a regrade), a delete, moves (to another
assignment, student, exercise) and an assignment's deletion. The kept counts the totals read (per assignment,
exercise and final status, kept by triggers) are what ``grader check-progress`` recounts, and it repairs them."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading.progress_sums import count_differences, recount
from grader.models import Assignment, Submission, SubmissionCount, SubmissionStatus
from tests.factories import stand_in_submission

from .support import CH13_IDS, Api

pytestmark = pytest.mark.integration

FIRST, SECOND = CH13_IDS[0], CH13_IDS[1]
EXERCISES = [None, FIRST, SECOND, "ch99.nothing"]
STATUSES = [None, *(status.value for status in SubmissionStatus)]


def add(session: Session, user_id: int, assignment_id: int, exercise_id: str, status: str) -> Submission:
    """A submission written straight to the table (as the service or a bulk import would)."""
    row = stand_in_submission(assignment_id, user_id, exercise_id, 0.5, status)
    session.add(row)
    return row


def expected_ids(session: Session, assignment_ids: list[int], query: dict[str, Any], own: int | None) -> list[int]:
    """The ids a plain query finds for the listing, newest first (``own``: only that user's rows are visible)."""
    conditions = [Submission.assignment_id.in_(assignment_ids)]
    if own is not None:
        conditions.append(Submission.user_id == own)
    for name, column in (("student", Submission.user_id), ("exercise", Submission.exercise_id)):
        if name in query:
            conditions.append(column == query[name])
    if "status" in query:
        conditions.append(Submission.status == query["status"])
    return list(session.scalars(select(Submission.id).where(*conditions).order_by(Submission.id.desc())))


def assert_listings_match(api: Api, app: Flask) -> None:
    """Every filter combination, for the course's teacher, an admin and a student: total and rows as counted."""
    school = api.school
    with get_db(app).session() as session:
        course_assignments = list(session.scalars(select(Assignment.id).where(Assignment.course_id == school.course_a)))
        scopes: list[tuple[dict[str, Any], list[int]]] = [
            ({"course": school.course_a}, course_assignments),
            ({"assignment": school.open_assignment}, [school.open_assignment]),
            ({"assignment": school.practice_assignment}, [school.practice_assignment]),
            (
                {"course": school.course_a, "assignment": school.practice_assignment},
                [school.practice_assignment],
            ),
        ]
        alice = school.user_ids["alice"]
        # (who, whose rows alone they see, the student filters, the scopes): the teacher every combination.
        callers = [
            ("teacher", None, [None, alice], scopes),
            ("admin", None, [None], scopes[:1]),
            ("alice", alice, [None], scopes[:2]),
        ]
        checked = 0
        for who, own, students, their_scopes in callers:
            combinations = itertools.product(their_scopes, students, EXERCISES, STATUSES)
            for (scope, ids), student, exercise, status in combinations:
                filters = {"student": student, "exercise": exercise, "status": status}
                query = {**scope, **{name: value for name, value in filters.items() if value is not None}}
                response = api.get("/submissions", who, query_string={**query, "limit": 200})
                assert response.status_code == 200, (who, query, response.get_json())
                body = response.get_json()
                want = expected_ids(session, ids, query, own)
                assert len(want) < 200  # the page holds the whole listing
                assert (body["total"], [item["id"] for item in body["submissions"]]) == (len(want), want), (
                    who,
                    query,
                )
                checked += 1
        assert checked == 4 * 2 * 4 * 6 + 24 + 2 * 24
        assert count_differences(session) == []


def test_totals_and_rows_follow_every_write(api: Api, api_app: Flask) -> None:
    school = api.school
    alice, bob = school.user_ids["alice"], school.user_ids["bob"]
    statuses = [status.value for status in SubmissionStatus]
    with get_db(api_app).session() as session:
        rows = [
            add(session, user, assignment, exercise, status)
            for user, assignment, exercise, status in itertools.product(
                (alice, bob),
                (school.open_assignment, school.practice_assignment, school.closed_assignment),
                (FIRST, SECOND),
                statuses,
            )
        ]
        add(session, school.user_ids["carol"], school.other_assignment, FIRST, "error")  # another course
        session.commit()
        ids = [row.id for row in rows]
    assert_listings_match(api, api_app)

    with get_db(api_app).session() as session:
        queued = list(session.scalars(select(Submission).where(Submission.status == "queued").order_by(Submission.id)))
        for row in queued:  # claimed, as the worker does
            row.status = "grading"
        session.commit()
        for row, final in zip(queued, itertools.cycle(("graded", "invalid", "error")), strict=False):
            row.status, row.score = final, (1.0 if final == "graded" else None)
        session.commit()
        graded = session.scalars(select(Submission).where(Submission.status == "graded")).first()
        assert graded is not None
        graded.score = 0.25  # a regrade that keeps the status
        errored = session.scalars(select(Submission).where(Submission.status == "error")).first()
        assert errored is not None
        errored.status = "queued"  # sent again
        session.commit()
    assert_listings_match(api, api_app)

    with get_db(api_app).session() as session:
        session.delete(session.get_one(Submission, ids[0]))
        session.get_one(Submission, ids[1]).assignment_id = school.practice_assignment
        session.get_one(Submission, ids[2]).user_id = bob
        session.get_one(Submission, ids[3]).exercise_id = SECOND
        moved = session.get_one(Submission, ids[4])
        moved.assignment_id, moved.status = school.open_assignment, "graded"  # moved and graded at once
        session.commit()
    assert_listings_match(api, api_app)

    with get_db(api_app).session() as session:
        session.delete(session.get_one(Assignment, school.closed_assignment))  # its submissions stay, unassigned
        session.commit()
        assert (
            session.scalar(select(SubmissionCount).where(SubmissionCount.assignment_id == school.closed_assignment))
            is None
        )
    assert_listings_match(api, api_app)


def test_check_progress_finds_and_repairs_each_kept_count(api: Api, api_app: Flask) -> None:
    school = api.school
    with get_db(api_app).session() as session:
        for status in ("graded", "error", "error", "queued"):
            add(session, school.user_ids["alice"], school.open_assignment, FIRST, status)
        session.commit()
        assert count_differences(session) == []
        session.execute(update(SubmissionCount).values(error=7, graded=0))
        session.commit()
        shard = school.user_ids["alice"] % 16
        where = f"assignment {school.open_assignment} exercise {FIRST} shard {shard}"
        assert count_differences(session) == [f"{where}: graded kept 0, counted 1", f"{where}: error kept 7, counted 2"]
        # A listing reading the broken counts shows them: the check is what finds them.
        status = {"assignment": school.open_assignment, "status": "error"}
        assert api.get("/submissions", "teacher", query_string=status).get_json()["total"] == 7
        recount(session)
        session.commit()
        assert count_differences(session) == []
    assert api.get("/submissions", "teacher", query_string=status).get_json()["total"] == 2

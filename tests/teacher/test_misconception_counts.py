"""The assignment dashboard's misconception table and misconceptions.csv, read from the kept rows (answer tags,
misconception counts, kept by triggers on submissions and enrolments), equal the table the plain read-time query
gives (``tests.teacher.misconception_reference``, the query the dashboard ran before), on both databases: after
grades with tags, regrades changing tags, re-queues, deletes, moves (to another assignment, student, exercise),
unenrolments, a change of role, re-enrolments, an exercise taken out of an assignment and an assignment's deletion.
``grader check-progress``'s recomputation finds no difference, finds a spoiled kept row, and its refill repairs it.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from grader.grading.misconception_check import misconception_differences, refill
from grader.models import (
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    MisconceptionCount,
    MisconceptionTagCount,
    Role,
    Submission,
)
from grader.teacher import analytics, exports
from tests.factories import make_assignment, make_user, stand_in_submission

from .misconception_reference import misconceptions as reference

pytestmark = pytest.mark.integration

FIRST, SECOND = "ch13.shift-pairs", "ch13.greedy-decode"

# Parts of the shapes the engine writes and a few it no longer does: a tie between two fields (the first by name
# wins), a part without tags, a score missing, a read that is a number, a read missing, parts null.
PARTS: list[dict[str, Any] | None] = [
    {"b": {"score": 0.0, "read": "b1", "tags": ["t1", "t2"]}, "a": {"score": 0.0, "read": "a1", "tags": ["t1"]}},
    {"a": {"score": 0.5, "read": "a2", "tags": ["t2"]}, "b": {"score": 0.25, "read": 7, "tags": ["t2", "t3"]}},
    {"a": {"score": 0.0, "read": "a3", "tags": []}, "b": {"score": 1.0, "read": "b3"}},
    {"a": {"score": 0.0, "read": "a4"}},
    {"a": {"read": "a5", "tags": ["t3"]}, "b": {"score": 0.1, "tags": ["t3", "t4"]}},
    {"z": {"score": 0.0, "read": "z6", "tags": ["t1"]}, "c": {"score": 0.0, "read": "c6", "tags": ["t1"]}},
    None,
]


def assert_tables_match(session: Session, assignments: list[Assignment]) -> None:
    """Every assignment's kept table equals the plain query's; the CSV rows follow; check-progress finds nothing."""
    session.commit()
    for assignment in assignments:
        session.refresh(assignment)
        kept = analytics.misconceptions(session, assignment)
        assert kept == reference(session, assignment), assignment.id
        session.rollback()  # the reference's SET LOCAL ends here
        rows = list(exports.misconception_rows(session, assignment))
        assert len(rows) == 1 + sum(len(table.tags) for table in kept)
    assert misconception_differences(session) == []
    session.rollback()


def graded(row: Submission, score: float, parts: dict[str, Any] | None) -> None:
    """``row`` graded now: its final status, score and parts in one write, as the pipeline's final UPDATE."""
    row.status, row.score, row.parts = "graded", score, parts


def test_kept_table_follows_every_write(session: Session) -> None:
    students = [make_user(session) for _ in range(4)]
    teacher = make_user(session, Role.TEACHER)
    outsider = make_user(session)
    main = make_assignment(session, students, exercise_ids=[FIRST, SECOND])
    course_id = main.course_id
    second = Assignment(course_id=course_id, title_zh="二", title_en="Second", exercise_ids=[FIRST])
    session.add(second)
    session.add(Enrolment(course_id=course_id, user_id=teacher.id, role=EnrolmentRole.TEACHER))
    elsewhere = make_assignment(session, [outsider], exercise_ids=[FIRST])
    session.commit()
    assignments = [main, second, elsewhere]

    rows: list[Submission] = []
    people = [*students, teacher, outsider]
    for user, assignment, exercise in itertools.product(people, assignments, (FIRST, SECOND)):
        for _ in range(2):
            rows.append(stand_in_submission(assignment.id, user.id, exercise, status="queued"))
    session.add_all(rows)
    session.commit()
    assert_tables_match(session, assignments)

    for row in rows:  # claimed, as the worker does
        row.status = "grading"
    session.commit()
    scores = itertools.cycle((0.0, 0.5, 1.0, 0.2, 0.9999, 0.3))
    for row, parts, score in zip(rows, itertools.cycle(PARTS), scores, strict=False):
        graded(row, score, parts)
    session.commit()
    assert_tables_match(session, assignments)
    assert session.scalar(select(MisconceptionTagCount.students).where(MisconceptionTagCount.tag == "t1"))

    # Regrades: other tags, a wrong answer made right, a right one made wrong, the same score with new parts.
    for row, parts in zip(rows[::3], itertools.cycle(reversed(PARTS)), strict=False):
        graded(row, row.score if row.score is not None else 0.0, parts)
    for row in rows[1::5]:
        graded(row, 1.0, row.parts)
    for row in rows[2::7]:
        graded(row, 0.0, PARTS[0])
    session.commit()
    assert_tables_match(session, assignments)

    for row in rows[4::6]:  # sent again
        row.status, row.score = "queued", None
    session.commit()
    assert_tables_match(session, assignments)

    session.delete(rows[0])
    rows[1].assignment_id = second.id
    rows[2].user_id = students[1].id
    rows[3].exercise_id = SECOND
    rows[5].user_id = outsider.id  # to a submitter who is no student of the course
    graded(rows[6], 0.1, PARTS[1])
    rows[6].assignment_id = elsewhere.id  # moved and regraded at once
    session.commit()
    assert_tables_match(session, assignments)

    session.execute(delete(Enrolment).where(Enrolment.user_id == students[0].id, Enrolment.course_id == course_id))
    session.execute(
        update(Enrolment)
        .where(Enrolment.user_id == students[1].id, Enrolment.course_id == course_id)
        .values(role=EnrolmentRole.TEACHER)
    )
    session.commit()
    assert_tables_match(session, assignments)

    session.add(Enrolment(course_id=course_id, user_id=students[0].id, role=EnrolmentRole.STUDENT))
    session.add(Enrolment(course_id=course_id, user_id=outsider.id, role=EnrolmentRole.STUDENT))
    session.execute(
        update(Enrolment)
        .where(Enrolment.user_id == students[1].id, Enrolment.course_id == course_id)
        .values(role=EnrolmentRole.STUDENT)
    )
    session.commit()
    assert_tables_match(session, assignments)

    main.exercise_ids = [SECOND]  # its answers to FIRST are no longer counted, and their kept rows left out
    session.commit()
    assert_tables_match(session, assignments)

    session.delete(second)  # its submissions stay, unassigned
    session.commit()
    assert_tables_match(session, [main, elsewhere])
    assert not session.scalars(select(MisconceptionCount).where(MisconceptionCount.assignment_id == second.id)).all()

    session.delete(session.get_one(Course, elsewhere.course_id))  # the course, its enrolments and assignments
    session.commit()
    assert_tables_match(session, [main])


def test_check_progress_finds_and_refills_spoiled_rows(session: Session) -> None:
    students = [make_user(session) for _ in range(2)]
    assignment = make_assignment(session, students, exercise_ids=[FIRST])
    for student, parts in zip(students, PARTS, strict=False):
        row = stand_in_submission(assignment.id, student.id, FIRST, score=0.0)
        row.parts = parts
        session.add(row)
    session.commit()
    assert_tables_match(session, [assignment])
    before = analytics.misconceptions(session, assignment)
    assert [tag.tag for tag in before[0].tags] == ["t2", "t1", "t3"]  # t2 on both answers

    session.execute(update(MisconceptionTagCount).where(MisconceptionTagCount.tag == "t1").values(students=9))
    session.execute(update(MisconceptionCount).values(wrong=MisconceptionCount.wrong + 1))
    session.execute(
        delete(MisconceptionTagCount).where(MisconceptionTagCount.tag == "t3"),
    )
    session.commit()
    found = misconception_differences(session)
    # Each spoiled kind: a wrong count, a students count, a deleted tag's rows (kept as none).
    for spoiled in ("misconception count (", "kept (1, 9), recomputed (1, 1)", "kept (0, 0), recomputed (1, 1)"):
        assert any(spoiled in line for line in found), (spoiled, found)
    assert analytics.misconceptions(session, assignment) != before

    refill(session)
    session.commit()
    assert misconception_differences(session) == []
    assert analytics.misconceptions(session, assignment) == before

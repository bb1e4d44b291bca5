"""A whole course's grade table (the grades files, the .xlsx gradebook) reads the assignment's rows whole instead of
naming every student in its statements; it says the same as the table of named students, and a student left out is
never counted in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import delete
from sqlalchemy.orm import Session

from grader.grading import terms
from grader.grading.overrides import OverrideRequest, overrides_of, set_override
from grader.grading.terms import ExtensionRequest, grant_extension, terms_of_students
from grader.models import Assignment, Enrolment, Role, utcnow
from grader.models.overrides import TOTAL
from grader.teacher.grade_table import grade_table
from tests.factories import EXERCISE, make_assignment, make_graded, make_user


@pytest.fixture
def marked_course(session: Session) -> tuple[Assignment, list[int], int]:
    """An assignment of three students: one extended, one overridden (an exercise and the total), one graded late;
    and a fourth, extended and overridden, who has since left the course. (assignment, the three ids, the fourth's.)"""
    students = [make_user(session) for _ in range(4)]
    now = utcnow()
    assignment = make_assignment(session, students, attempts_allowed=3, due_at=now + timedelta(days=1))
    ids = [student.id for student in students]
    for index, score in ((0, 0.5), (2, 1.0), (3, 0.25)):
        make_graded(session, assignment.id, ids[index], EXERCISE, score)
    later = now + timedelta(days=3)
    for extended in (ids[0], ids[3]):
        grant_extension(session, assignment, extended, ExtensionRequest(later, 2, "ill"), ids[0], now)
    for overridden in (ids[1], ids[3]):
        for exercise_id, score in ((EXERCISE, 0.75), (TOTAL, 0.9)):
            set_override(session, assignment, overridden, OverrideRequest(exercise_id, score, "seen"), "user:t", now)
    session.execute(delete(Enrolment).where(Enrolment.user_id == ids[3]))  # left, keeping their rows
    session.commit()
    return assignment, ids[:3], ids[3]


@pytest.mark.parametrize("named_at_most", [0, 1000], ids=["read-whole", "named"])
def test_terms_and_overrides_of_many_students_are_those_of_each(
    session: Session,
    marked_course: tuple[Assignment, list[int], int],
    named_at_most: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With more students than are named in a statement, the assignment's extensions and overrides are read whole
    and kept only for the students asked about: the same answer as for each student on their own."""
    assignment, listed, _left = marked_course
    monkeypatch.setattr(terms, "NAMED_STUDENTS_MAX", named_at_most)  # one setting for both readers
    found = terms_of_students(session, assignment, listed)
    assert set(found) == set(listed)
    assert [found[user_id] for user_id in listed] == [terms.student_terms(session, assignment, i) for i in listed]
    assert found[listed[0]].extra_attempts == 2 and found[listed[1]].extra_attempts == 0
    kept = overrides_of(session, assignment, listed)
    assert set(kept) == {(listed[1], EXERCISE), (listed[1], TOTAL)}  # not the student who left


def test_the_whole_course_table_is_the_table_of_its_students(
    session: Session, marked_course: tuple[Assignment, list[int], int]
) -> None:
    """``grade_table`` of the whole course equals the one of its students named, row for row; the student who left
    (and a teacher's try) are in neither."""
    assignment, listed, left = marked_course
    teacher = make_user(session, Role.TEACHER)
    make_graded(session, assignment.id, teacher.id, EXERCISE, 1.0)
    whole = grade_table(session, assignment)
    named = grade_table(session, assignment, listed)
    assert whole == named
    by_id = {row.user_id: row for row in whole}
    assert left not in by_id and teacher.id not in by_id
    assert by_id[listed[0]].cells[0].score == 0.5 and by_id[listed[0]].terms.extra_attempts == 2
    assert by_id[listed[1]].cells[0].overridden and by_id[listed[1]].total_overridden
    assert by_id[listed[2]].cells[0].score == 1.0 and not by_id[listed[2]].total_overridden

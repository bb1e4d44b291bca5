"""What an LMS reads to keep its gradebook in sync: a course's students and an assignment's counted results.

Both are staff listings, paged by student id (``after_id``), with a fixed number of statements per page however
many students the course has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.api import queries
from grader.api_errors import ApiError
from grader.auth import Principal
from grader.grading import policy
from grader.grading.access import Action
from grader.grading.overrides import overrides_of
from grader.grading.points import Total, points_of, total_of
from grader.grading.terms import StudentTerms, terms_of_students
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, GradeLogEntry, Submission, User
from grader.models.overrides import TOTAL, ScoreOverride


@dataclass(frozen=True)
class Student:
    """An enrolled student as the roster and the gradebook name them."""

    id: int
    username: str
    display_name: str
    enrolled_at: datetime


@dataclass(frozen=True)
class StudentPage:
    """Up to ``limit`` students in id order, and the id to go on after (None on the last page)."""

    students: list[Student]
    next_after_id: int | None


@dataclass(frozen=True)
class GradebookRow:
    """One student's results on every exercise of the assignment (in assignment order)."""

    student: Student
    results: list[tuple[str, policy.ExerciseResult]]
    scores_changed_at: datetime | None  # the latest grade-log entry of theirs in the assignment
    terms: StudentTerms  # their own due date and attempt limit
    total_override: ScoreOverride | None = None  # a teacher's correction of the assignment total
    points: dict[str, float] = field(default_factory=dict)  # each exercise's points (grader.grading.points)


@dataclass(frozen=True)
class GradebookPage:
    """A page of the gradebook: rows in student id order and the id to go on after (None on the last page)."""

    rows: list[GradebookRow]
    next_after_id: int | None


NO_RESULT = policy.ExerciseResult(attempts_used=0, score=None)


def staff_course(
    session: Session, principal: Principal, course_id: int, action: Action = Action.SEE_STUDENTS
) -> Course:
    """The course if the caller may do ``action`` there (by default: see its students; admins: any); 404 to
    non-members, 403 to its students and to staff whose part does not allow ``action`` (a TA changing the roster)."""
    course = session.get(Course, course_id)
    if course is None or not queries.teaches(session, principal, course_id, Action.VIEW_COURSE):
        raise ApiError(404, "not_found", f"No course {course_id}.")
    if not queries.teaches(session, principal, course_id):
        raise ApiError(403, "forbidden", "Only the course's teachers and admins may list its students.")
    if not queries.teaches(session, principal, course_id, action):
        raise ApiError(403, "forbidden", "Only the course's teachers, co-teachers and admins may do this.")
    return course


def staff_assignment(session: Session, principal: Principal, assignment_id: int) -> Assignment:
    """The assignment if the caller acts as staff in it; 404 to non-members (as for progress), 403 to its students.

    Every row of a gradebook is some student's: a student's own row is their progress (GET .../progress).
    """
    assignment = queries.visible_assignment(session, principal, assignment_id)
    if not queries.acts_as_staff_in(session, principal, assignment.id):
        raise ApiError(
            403,
            "forbidden",
            "Only the course's teachers and admins may read its gradebook; a student's "
            "own results are at /assignments/{id}/progress.",
        )
    return assignment


def student_page(session: Session, course_id: int, after_id: int, limit: int) -> StudentPage:
    """The course's students with ids above ``after_id``, in id order (index (course_id, user_id) gives that order)."""
    rows = session.execute(
        select(User.id, User.username, User.display_name, Enrolment.created_at)
        .join(Enrolment, Enrolment.user_id == User.id)
        .where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT, Enrolment.user_id > after_id)
        .order_by(Enrolment.user_id)
        .limit(limit + 1)
    ).all()
    students = [Student(*row) for row in rows[:limit]]
    return StudentPage(students, students[-1].id if len(rows) > limit else None)


def gradebook_page(session: Session, assignment: Assignment, after_id: int, limit: int) -> GradebookPage:
    """A page of the assignment's gradebook: a fixed number of statements (students, change times, results,
    extensions, overrides) per page.

    The change times are read before the results, so a grade that lands in between is in the scores shown, or
    later than the time shown: a client that keeps the time misses no change.
    """
    page = student_page(session, assignment.course_id, after_id, limit)
    user_ids = [student.id for student in page.students]
    changed = scores_changed_at(session, assignment, user_ids)
    results = policy.assignment_results(session, assignment, user_ids)
    own_terms = terms_of_students(session, assignment, user_ids)
    corrected = overrides_of(session, assignment, user_ids)
    worth = points_of(assignment)
    rows = [
        GradebookRow(
            student,
            [
                (exercise_id, results.get((student.id, exercise_id), NO_RESULT))
                for exercise_id in assignment.exercise_ids
            ],
            changed.get(student.id),
            own_terms[student.id],
            corrected.get((student.id, TOTAL)),
            worth,
        )
        for student in page.students
    ]
    return GradebookPage(rows, page.next_after_id)


def scores_changed_at(session: Session, assignment: Assignment, user_ids: list[int]) -> dict[int, datetime]:
    """Per student: when a score of theirs in the assignment last changed (graded or regraded), from the grade log."""
    if not user_ids or not assignment.exercise_ids:
        return {}
    rows = session.execute(
        select(Submission.user_id, func.max(GradeLogEntry.created_at))
        .join(GradeLogEntry, GradeLogEntry.submission_id == Submission.id)
        .where(
            Submission.assignment_id == assignment.id,
            Submission.user_id.in_(user_ids),
            Submission.exercise_id.in_(list(assignment.exercise_ids)),
        )
        .group_by(Submission.user_id)
    ).all()
    return {user_id: moment for user_id, moment in rows if moment is not None}


def total_score(row: GradebookRow) -> tuple[Total, int]:
    """The row's assignment total in points (a total override replacing the sum; unattempted exercises 0) and how
    many exercises have a counted score."""
    scores = [(exercise_id, result.score) for exercise_id, result in row.results]
    override = None if row.total_override is None else row.total_override.score
    return total_of(row.points, scores, override), sum(1 for _, score in scores if score is not None)

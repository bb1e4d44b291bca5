"""What each dashboard page shows, shaped for its template: statistics, chart geometry, tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import abort
from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from exercises import api as engine
from grader.models import Assignment, Course, Enrolment, RegradeChange, RegradeJob, Submission, User
from grader.percent import shown_percent
from grader.teacher import analytics, charts, progress_stats
from grader.teacher.regrade_reasons import shown_reason
from grader.ui.exercise_catalogue import exercise_title, field_labels

REGRADE_CHANGES_PER_PAGE = 200

SUBMISSIONS_SHOWN = 200
REGRADES_SHOWN = 5


@dataclass(frozen=True)
class AssignmentRow:
    """One assignment on the course dashboard with its statistics and histogram."""

    assignment: Assignment
    title: str
    summary: progress_stats.ScoreSummary
    chart: charts.Histogram


@dataclass(frozen=True)
class CoursePage:
    """The course dashboard: assignments with statistics, and one page of the students' progress."""

    course: Course
    assignments: tuple[AssignmentRow, ...]
    students: progress_stats.StudentTable


@dataclass(frozen=True)
class ExerciseRow:
    """One exercise on the assignment dashboard: statistics, histogram and misconception histogram."""

    exercise_id: str
    title: str
    summary: progress_stats.ScoreSummary
    chart: charts.Histogram
    misconceptions: analytics.MisconceptionTable
    tag_chart: charts.ShareChart
    untagged: int  # wrong answers carrying no misconception tag on any part
    tag_names: dict[str, str]  # tag -> short name in the page's language; tags the engine no longer knows are absent


@dataclass(frozen=True)
class AssignmentPage:
    """The assignment dashboard."""

    assignment: Assignment
    title: str
    exercises: tuple[ExerciseRow, ...]
    students: progress_stats.StudentTable
    regrades: tuple[RegradeJob, ...]
    engine_version: str


@dataclass(frozen=True)
class StudentPage:
    """One student's submissions in one course, newest first, with field labels for the feedback."""

    course: Course
    student: User
    submissions: tuple[Submission, ...]
    titles: dict[int, str]  # assignment id -> title
    labels: dict[str, dict[str, str]]  # exercise id -> field -> label
    exercise_titles: dict[str, str]


def course_page(session: Session, course: Course, lang: str, page: int = 1, search: str = "") -> CoursePage:
    """Statistics per assignment and one page of progress per student (matching ``search``) for the course."""
    assignments = list(course.assignments)
    summaries = progress_stats.assignment_stats(session, course.id, assignments)
    labels = charts.bin_labels()
    rows = tuple(
        AssignmentRow(a, a.title(lang), s, charts.histogram(f"a{a.id}", s.histogram, labels))
        for a, s in zip(assignments, summaries)
    )
    return CoursePage(course, rows, progress_stats.student_table(session, course.id, assignments, page, search))


def _tag_names(table: analytics.MisconceptionTable, lang: str) -> dict[str, str]:
    """The short name of each tag in the table that the engine knows, in ``lang``."""
    names = {tag.tag: engine.misconception_name(table.exercise_id, tag.tag, lang) for tag in table.tags}
    return {tag: name for tag, name in names.items() if name}


def _tag_chart(chart_id: str, table: analytics.MisconceptionTable, names: dict[str, str]) -> charts.ShareChart:
    """The misconception histogram: one bar per tag, called by its name (the bare tag if unknown), labelled with
    count and share; the tag stays the bar's key."""
    return charts.share_chart(
        chart_id,
        [
            (names.get(tag.tag, tag.tag), tag.share_of_wrong, f"{tag.count} ({shown_percent(tag.share_of_wrong)}%)")
            for tag in table.tags
        ],
        keys=[tag.tag for tag in table.tags],
    )


def assignment_page(
    session: Session, assignment: Assignment, lang: str, page: int = 1, search: str = ""
) -> AssignmentPage:
    """Statistics and misconceptions per exercise, one page of progress per student, and recent regrades."""
    stats = progress_stats.exercise_stats(session, assignment)
    tables = [table.in_words([lang]) for table in analytics.misconceptions(session, assignment)]
    labels = charts.bin_labels()
    names = [_tag_names(table, lang) for table in tables]
    exercises = tuple(
        ExerciseRow(
            str(s.key),
            exercise_title(str(s.key), lang),
            s,
            charts.histogram(f"e{index}", s.histogram, labels),
            table,
            _tag_chart(f"m{index}", table, tag_names),
            table.untagged,
            tag_names,
        )
        for index, (s, table, tag_names) in enumerate(zip(stats, tables, names))
    )
    regrades = session.scalars(
        select(RegradeJob)
        .where(RegradeJob.assignment_id == assignment.id)
        .order_by(RegradeJob.id.desc())
        .limit(REGRADES_SHOWN)
    ).all()
    students = progress_stats.student_table(session, assignment.course_id, [assignment], page, search)
    return AssignmentPage(
        assignment, assignment.title(lang), exercises, students, tuple(regrades), engine.ENGINE_VERSION
    )


def student_page(session: Session, course: Course, user_id: int, lang: str) -> StudentPage:
    """A member's recent submissions to the course's assignments; 404 if the user is not in the course."""
    student = session.scalar(
        select(User).join(Enrolment).where(Enrolment.course_id == course.id, Enrolment.user_id == user_id)
    )
    if student is None:
        abort(404)
    ids = [a.id for a in course.assignments]
    submissions = session.scalars(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.assignment_id.in_(ids))
        .order_by(Submission.id.desc())
        .limit(SUBMISSIONS_SHOWN)
    ).all()
    exercise_ids = {s.exercise_id for s in submissions}
    return StudentPage(
        course,
        student,
        tuple(submissions),
        {a.id: a.title(lang) for a in course.assignments},
        {e: field_labels(e, lang) for e in exercise_ids},
        {e: exercise_title(e, lang) for e in exercise_ids},
    )


def regrade_context(session: Session, job: RegradeJob, lang: str, page: int = 1) -> dict[str, Any]:
    """Template values for a regrade job's page: the job, its assignment, and one page of its changes with their
    students (a regrade after an engine update can change thousands of answers)."""
    total = session.scalar(select(func.count()).where(RegradeChange.job_id == job.id)) or 0
    pages = max(1, -(-total // REGRADE_CHANGES_PER_PAGE))
    page = min(max(page, 1), pages)
    changes = session.scalars(
        select(RegradeChange)
        .where(RegradeChange.job_id == job.id)
        .options(selectinload(RegradeChange.user))
        .order_by(RegradeChange.id)
        .limit(REGRADE_CHANGES_PER_PAGE)
        .offset((page - 1) * REGRADE_CHANGES_PER_PAGE)
    ).all()
    first = (page - 1) * REGRADE_CHANGES_PER_PAGE + 1
    # A student since removed from the course has no page to link to (it would be a 404).
    members = set(
        session.scalars(
            select(Enrolment.user_id).where(
                Enrolment.course_id == job.assignment.course_id, Enrolment.user_id.in_({c.user_id for c in changes})
            )
        )
    )
    return {
        "job": job,
        "title": job.assignment.title(lang),
        "changes": changes,
        "course": job.assignment.course,
        "members": members,
        "exercise_titles": {c.exercise_id: exercise_title(c.exercise_id, lang) for c in changes},
        "reasons": {c.id: shown_reason(c.reason, c.exercise_id, lang, c.applied) for c in changes},
        "paging": {"page": page, "pages": pages, "total": total, "first": first, "last": first + len(changes) - 1},
    }

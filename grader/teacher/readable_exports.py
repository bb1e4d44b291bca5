"""The grades and submissions files as people open them in Excel or WPS: headers in the page's language, scores as
points (the maximum in the header) and percent, "not attempted" apart from 0, times in the course's zone with its
offset, late and overridden cells marked. The machine-readable files (grader.teacher.exports) stay as they are."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.points import DEFAULT_POINTS, points_of
from grader.grading.terms import terms_of_students
from grader.i18n import t
from grader.models import Assignment, Submission
from grader.models.courses import shown_time
from grader.teacher.exports import number, part_tags, safe_text, submissions_query
from grader.teacher.grade_table import Cell, grade_table


def local_time(moment: datetime | None, zone: str) -> str:
    """``moment`` in the course's zone with the zone and its offset named; empty for none."""
    return "" if moment is None else shown_time(moment, zone)


def marked(text: str, lang: str, *, late: bool = False, overridden: bool = False) -> str:
    """``text`` followed by the late and overridden marks that apply."""
    marks = [t(key, lang) for key, on in (("export.mark.late", late), ("export.mark.overridden", overridden)) if on]
    return " ".join([text, *marks])


def cell_text(cell: Cell, lang: str) -> str:
    """A gradebook cell: the points earned, marked; the words "not attempted" when there is no counted score."""
    if cell.earned is None:
        return t("export.not_attempted", lang)
    return marked(number(cell.earned), lang, late=cell.late, overridden=cell.overridden)


def percent(fraction: float | None) -> str:
    """A fraction as a percent number (the % sign is in the header); empty for none."""
    return number(None if fraction is None else fraction * 100)


def grades_header(assignment: Assignment, lang: str) -> list[str]:
    """The readable grades header: each exercise and the total with its maximum in points, then the percent; each
    exercise's percent comes last, so that the earlier columns keep their places."""
    worth = points_of(assignment)
    return [
        t("export.col.username", lang),
        t("export.col.name", lang),
        *(t("export.col.points_of", lang, name=e, max=number(p)) for e, p in worth.items()),
        t("export.col.points_of", lang, name=t("export.col.total", lang), max=number(sum(worth.values()))),
        t("export.col.percent", lang),
        t("export.col.due", lang),
        t("export.col.extra_attempts", lang),
        *(t("export.col.percent_of", lang, name=e) for e in worth),
    ]


def readable_grades_rows(session: Session, assignment: Assignment, lang: str) -> Iterator[list[str]]:
    """Header, then one row per enrolled student: points per exercise and in total, percent, due date, extra
    attempts."""
    zone = assignment.course.time_zone

    @functools.cache  # most students share the assignment's own due date
    def due_text(moment: datetime | None) -> str:
        return local_time(moment, zone)

    yield grades_header(assignment, lang)
    for row in grade_table(session, assignment):
        yield [
            safe_text(row.username),
            safe_text(row.display_name),
            *(cell_text(cell, lang) for cell in row.cells),
            marked(number(row.total.points), lang, overridden=row.total_overridden),
            percent(row.total.fraction),
            due_text(row.terms.due_at),
            str(row.terms.extra_attempts),
            *(percent(cell.score) for cell in row.cells),  # empty when not attempted, kept apart from 0
        ]


SUBMISSION_COLUMNS = (
    "submission_id",
    "username",
    "name",
    "exercise",
    "status",
    "points",
    "max_points",
    "percent",
    "raw_answer",
    "tags",
    "created",
    "finished",
    "counted",
)


def readable_submissions_rows(session: Session, assignment: Assignment, lang: str) -> Iterator[list[str]]:
    """Header, then every submission to the assignment, oldest first, with its score in points (marked if late) and
    percent and its times in the course's zone."""
    yield [t(f"export.col.{column}", lang) for column in SUBMISSION_COLUMNS]
    worth = points_of(assignment)
    zone = assignment.course.time_zone
    query = submissions_query(assignment)
    submitters = session.scalars(select(Submission.user_id).where(Submission.assignment_id == assignment.id).distinct())
    # Each submitter's own due date (extensions), so a row is marked late exactly when its grade counted it late.
    terms = terms_of_students(session, assignment, list(submitters))
    for row in session.execute(query):
        # An exercise taken out of the assignment is still worth the default point, as the gradebook counted it.
        possible = worth.get(row.exercise_id, DEFAULT_POINTS)
        yield [
            str(row.id),
            safe_text(row.username),
            safe_text(row.display_name),
            row.exercise_id,
            t(f"substatus.{row.status}", lang),
            marked(
                number(None if row.score is None else row.score * possible),
                lang,
                late=terms[row.user_id].lateness(row.created_at) is not None,
            ),
            number(possible),
            percent(row.score),
            safe_text(answer_text(row.raw_answer)),
            ";".join(part_tags(row.parts)),
            local_time(row.created_at, zone),
            local_time(row.finished_at, zone),
            t("export.yes" if row.counted else "export.no", lang),
        ]


def answer_text(raw: object) -> str:
    """A typed answer as the student wrote it: the fields' values, one per field, named."""
    if isinstance(raw, dict):
        return "; ".join(f"{key}: {value}" for key, value in raw.items())
    return "" if raw is None else str(raw)

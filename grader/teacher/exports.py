"""CSV exports of an assignment: grades (one row per student), every submission, and the misconception table."""

from __future__ import annotations

import csv
import functools
import io
import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import Select, case, select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import Assignment, Submission, User
from grader.teacher import analytics
from grader.teacher.grade_table import grade_table

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")  # spreadsheet formula triggers
GRADES_HEADER_START = ("username", "display_name")
# After the total, so that existing columns keep their places: the student's own due date (an extension's, else the
# assignment's; UTC), the extra attempts they were given per exercise, the exercises whose score a teacher overrode
# ("total" for the total), those whose counted attempt was late, and the total's maximum and percent ("total" is the
# points earned: each exercise's counted score times its points).
GRADES_HEADER_END = ("total", "due_at", "extra_attempts", "overridden", "late", "max_points", "percent")
# ``counted`` (yes/no) comes last so that existing columns keep their places: whether the dashboards and the grades
# count the row (a graded answer of an enrolled student to an exercise the assignment still sets), since the file
# also holds the teacher's own tries, former students' rows and answers to exercises taken out of the assignment.
SUBMISSIONS_HEADER = (
    "submission_id",
    "username",
    "display_name",
    "exercise_id",
    "seed",
    "status",
    "score",
    "raw_answer",
    "parsed_answer",
    "tags",
    "engine_version",
    "created_at",
    "finished_at",
    "counted",
)
# The tag's short name in both languages, appended so that existing columns keep their places; both, not the page's
# language, so that the file is the same whoever downloads it.
MISCONCEPTIONS_HEADER = (
    "exercise_id",
    "tag",
    "count",
    "students",
    "share_of_wrong",
    "wrong_answers",
    "examples",
    "name_zh",
    "name_en",
)
STREAM_BATCH = 1000


def safe_text(value: str) -> str:
    """Free text from users (names) with a leading quote if a spreadsheet would run it as a formula."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


@functools.lru_cache(maxsize=4096)  # a gradebook's scores are a few values repeated thousands of times
def number(value: float | None) -> str:
    """A score as text with at most 6 decimals; empty for none."""
    if value is None:
        return ""
    # Fixed-point, then trailing zeros cut: ":g" would keep 6 significant digits (a total of 12.1666667 as 12.1667).
    return f"{round(float(value), 6):.6f}".rstrip("0").rstrip(".")


def timestamp(moment: datetime | None) -> str:
    """An ISO 8601 UTC timestamp; empty for none."""
    return "" if moment is None else moment.isoformat()


def csv_lines(rows: Iterable[Iterable[Any]]) -> Iterator[str]:
    """CSV text, one line per row, suitable for streaming a response."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def grades_rows(session: Session, assignment: Assignment) -> Iterator[list[str]]:
    """Header, then one row per enrolled student: counted score per exercise (empty if never graded), total, and
    their own due date and extra attempts (the machine-readable file, ids for headers, UTC times)."""
    yield [*GRADES_HEADER_START, *assignment.exercise_ids, *GRADES_HEADER_END]
    for row in grade_table(session, assignment):
        yield [
            safe_text(row.username),
            safe_text(row.display_name),
            *(number(cell.score) for cell in row.cells),
            number(row.total.points),
            timestamp(row.terms.due_at),
            str(row.terms.extra_attempts),
            ";".join(
                [*(c.exercise_id for c in row.cells if c.overridden), *(["total"] if row.total_overridden else [])]
            ),
            ";".join(cell.exercise_id for cell in row.cells if cell.late),
            number(row.total.max_points),
            number(None if row.total.fraction is None else row.total.fraction * 100),
        ]


def part_tags(parts: dict[str, Any] | None) -> list[str]:
    """Distinct misconception tags over a submission's parts, in field order."""
    tags: list[str] = []
    for part in (parts or {}).values():
        for tag in part.get("tags") or ([part["misconception"]] if part.get("misconception") else []):
            if tag not in tags:
                tags.append(tag)
    return tags


def submissions_query(assignment: Assignment) -> Select[Any]:
    """Every submission to the assignment, oldest first, as plain columns streamed in batches, ``counted`` saying
    whether the dashboards count it, and last the submitter's id."""
    # The dashboards' own condition (analytics), so the column cannot drift from what they show.
    counted = case((analytics.graded_of_students([assignment], assignment.course_id), 1), else_=0).label("counted")
    # Plain columns, not ORM objects: the export reads each row once, so identity-map bookkeeping and decoding the
    # columns it never shows (errors, lease fields) were most of its time.
    return (
        select(
            Submission.id,
            User.username,
            User.display_name,
            Submission.exercise_id,
            Submission.seed,
            Submission.status,
            Submission.score,
            Submission.raw_answer,
            Submission.parsed_answer,
            Submission.parts,
            Submission.engine_version,
            Submission.created_at,
            Submission.finished_at,
            counted,
            Submission.user_id,
        )
        .join(User, User.id == Submission.user_id)
        .where(Submission.assignment_id == assignment.id)
        .order_by(Submission.id)
        .execution_options(yield_per=STREAM_BATCH)
    )


def submissions_rows(session: Session, assignment: Assignment) -> Iterator[list[str]]:
    """Header, then every submission to the assignment (anyone's, any status), oldest first, streamed in batches,
    each saying whether the dashboards count it."""
    yield list(SUBMISSIONS_HEADER)
    query = submissions_query(assignment)
    for (
        submission_id,
        username,
        display_name,
        exercise_id,
        seed,
        status,
        score,
        raw_answer,
        parsed_answer,
        parts,
        engine_version,
        created_at,
        finished_at,
        is_counted,
        _user_id,
    ) in session.execute(query):
        yield [
            str(submission_id),
            safe_text(username),
            safe_text(display_name),
            exercise_id,
            str(seed),
            str(status),
            number(score),
            json.dumps(raw_answer, ensure_ascii=False),
            "" if parsed_answer is None else json.dumps(parsed_answer, ensure_ascii=False),
            ";".join(part_tags(parts)),
            engine_version or "",
            timestamp(created_at),
            timestamp(finished_at),
            "yes" if is_counted else "no",
        ]


def misconception_rows(session: Session, assignment: Assignment) -> Iterator[list[str]]:
    """Header, then one row per (exercise, tag) of the misconception histogram, with the tag's names (empty if the
    engine no longer knows the tag)."""
    yield list(MISCONCEPTIONS_HEADER)
    for table in analytics.misconceptions(session, assignment):
        for tag in table.in_words(("zh", "en")).tags:
            yield [
                table.exercise_id,
                tag.tag,
                str(tag.count),
                str(tag.students),
                number(tag.share_of_wrong),
                str(table.wrong_answers),
                " | ".join(tag.examples),
                *(engine.misconception_name(table.exercise_id, tag.tag, lang) or "" for lang in ("zh", "en")),
            ]


def filename(assignment: Assignment, kind: str) -> str:
    """The download name: assignment id and kind, ASCII only."""
    return f"assignment-{assignment.id}-{kind}.csv"

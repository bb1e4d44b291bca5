"""``grader check-progress`` for the kept misconception rows (``grader.models.misconception_counts``, kept by
triggers): each wrong graded answer's tags recomputed from its parts, and the enrolled students' counts from those,
compared with the kept rows; ``refill`` replaces the kept rows by the recomputation.

The recomputation expands every wrong answer's parts JSON, as the dashboard once did at read time: it is the
reference the triggers are checked against, run by an operator, never by a page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import ColumnElement, Float, Select, case, cast, delete, exists, func, insert, select, true
from sqlalchemy.orm import Session

from grader import sql_dialects
from grader.models import (
    SHARDS,
    AnswerTag,
    Assignment,
    Enrolment,
    EnrolmentRole,
    MisconceptionCount,
    MisconceptionTagCount,
    Submission,
    SubmissionStatus,
)
from grader.percent import FULL_MARKS

TAG_FIELDS = ("assignment_id", "exercise_id", "user_id", "field")


def fresh_answer_tags(dialect: str) -> Select[*tuple[Any, ...]]:
    """SELECT (submission id, tag, assignment, exercise, user, field): every wrong graded answer's tags, each
    with its lowest-scoring tagged part (ties: the first field by name), computed from the parts."""
    parts = sql_dialects.json_object_items(dialect, Submission.parts.expression, Submission.parts.type).alias("part")
    tags = sql_dialects.json_array_texts(dialect, parts.c.value, "tags").alias("tag")
    choice = func.row_number().over(
        partition_by=(Submission.id, tags.c.value),
        order_by=(cast(sql_dialects.json_text(parts.c.value, "score"), Float), parts.c.key),
    )
    expanded = (
        select(
            Submission.id.label("submission_id"),
            tags.c.value.label("tag"),
            Submission.assignment_id,
            Submission.exercise_id,
            Submission.user_id,
            parts.c.key.label("field"),
            choice.label("choice"),
        )
        .select_from(Submission)
        .join(parts, true())
        .join(tags, true())
        .where(
            Submission.status == SubmissionStatus.GRADED,
            Submission.score < FULL_MARKS,
            Submission.assignment_id.is_not(None),
            tags.c.value.is_not(None),
        )
        .subquery("expanded")
    )
    return select(*(expanded.c[name] for name in ("submission_id", "tag", *TAG_FIELDS))).where(expanded.c.choice == 1)


def _enrolled(assignment_id: Any, user_id: Any) -> ColumnElement[bool]:
    """SQL: ``user_id`` is enrolled as a student in the course of ``assignment_id``."""
    return exists().where(
        Assignment.id == assignment_id,
        Enrolment.course_id == Assignment.course_id,
        Enrolment.user_id == user_id,
        Enrolment.role == EnrolmentRole.STUDENT,
    )


def _fresh_counts(dialect: str) -> Select[*tuple[Any, ...]]:
    """SELECT (assignment, exercise, shard, wrong, tagged) over the enrolled students' wrong answers."""
    tagged = fresh_answer_tags(dialect).subquery("tagged")
    has_tag = exists().where(tagged.c.submission_id == Submission.id)
    shard = Submission.user_id % SHARDS
    return (
        select(
            Submission.assignment_id,
            Submission.exercise_id,
            shard,
            func.count(),
            func.sum(case((has_tag, 1), else_=0)),
        )
        .where(
            Submission.status == SubmissionStatus.GRADED,
            Submission.score < FULL_MARKS,
            Submission.assignment_id.is_not(None),
            _enrolled(Submission.assignment_id, Submission.user_id),
        )
        .group_by(Submission.assignment_id, Submission.exercise_id, shard)
    )


def _fresh_tag_counts(dialect: str) -> Select[*tuple[Any, ...]]:
    """SELECT (assignment, exercise, tag, shard, answers, students) over the enrolled students' wrong answers."""
    tags = fresh_answer_tags(dialect).subquery("tags")
    shard = tags.c.user_id % SHARDS
    return (
        select(
            tags.c.assignment_id,
            tags.c.exercise_id,
            tags.c.tag,
            shard,
            func.count(),
            func.count(tags.c.user_id.distinct()),
        )
        .where(_enrolled(tags.c.assignment_id, tags.c.user_id))
        .group_by(tags.c.assignment_id, tags.c.exercise_id, tags.c.tag, shard)
    )


def _compared(
    what: str, kept: Mapping[Any, tuple[Any, ...]], fresh: Mapping[Any, tuple[Any, ...]], zero: Any
) -> list[str]:
    """A line per key whose kept values differ from the recomputed ones (``zero``: what a missing row means)."""
    return [
        f"{what} {key}: kept {kept.get(key, zero)}, recomputed {fresh.get(key, zero)}"
        for key in sorted({*kept, *fresh}, key=repr)
        if kept.get(key, zero) != fresh.get(key, zero)
    ]


def misconception_differences(session: Session) -> list[str]:
    """Each kept answer tag and misconception count that differs from its recomputation, as a line of text."""
    dialect = sql_dialects.dialect_of(session)
    sql_dialects.plan_json_expansion_without_jit(session)
    fresh_tags = {
        (submission_id, tag): tuple(rest) for submission_id, tag, *rest in session.execute(fresh_answer_tags(dialect))
    }
    kept_tags = {
        (row.submission_id, row.tag): tuple(getattr(row, name) for name in TAG_FIELDS)
        for row in session.scalars(select(AnswerTag))
    }
    found = _compared("answer tag", kept_tags, fresh_tags, None)
    fresh = {(a, e, part): (int(w), int(t)) for a, e, part, w, t in session.execute(_fresh_counts(dialect))}
    kept = {
        (r.assignment_id, r.exercise_id, r.shard): (r.wrong, r.tagged)
        for r in session.scalars(select(MisconceptionCount))
    }
    found += _compared("misconception count", kept, fresh, (0, 0))
    fresh_by_tag = {
        (a, e, g, part): (int(n), int(s)) for a, e, g, part, n, s in session.execute(_fresh_tag_counts(dialect))
    }
    kept_by_tag = {
        (r.assignment_id, r.exercise_id, r.tag, r.shard): (r.answers, r.students)
        for r in session.scalars(select(MisconceptionTagCount))
    }
    return found + _compared("misconception tag count", kept_by_tag, fresh_by_tag, (0, 0))


def refill(session: Session) -> None:
    """Replace every kept answer tag and misconception count by its recomputation, in ``session``'s transaction."""
    dialect = sql_dialects.dialect_of(session)
    sql_dialects.plan_json_expansion_without_jit(session)
    for model in (MisconceptionTagCount, MisconceptionCount, AnswerTag):
        session.execute(delete(model))
    session.execute(insert(AnswerTag).from_select(["submission_id", "tag", *TAG_FIELDS], fresh_answer_tags(dialect)))
    session.execute(
        insert(MisconceptionCount).from_select(
            ["assignment_id", "exercise_id", "shard", "wrong", "tagged"], _fresh_counts(dialect)
        )
    )
    session.execute(
        insert(MisconceptionTagCount).from_select(
            ["assignment_id", "exercise_id", "tag", "shard", "answers", "students"], _fresh_tag_counts(dialect)
        )
    )

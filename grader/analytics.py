"""Aggregate statistics for the teacher dashboard: a few GROUP BY queries per view, never one query per student.

Only graded submissions of the course's enrolled students count; a student's score on an exercise is the
assignment's counted score (best or last graded attempt), as students see it.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Float, Select, Subquery, and_, case, cast, false, func, literal, or_, select, text, true
from sqlalchemy.orm import Session, aliased

from grader.models import Assignment, Enrolment, EnrolmentRole, ScorePolicy, Submission, SubmissionStatus, User

FULL_MARKS = 0.9995  # a score this high counts as fully correct (the student pages round the same way)
BIN_EDGES = (0.2, 0.4, 0.6, 0.8)  # histogram bins: 0–19 %, 20–39 %, 40–59 %, 60–79 %, 80–99 %, 100 %
BIN_COUNT = len(BIN_EDGES) + 2
EXAMPLES_PER_TAG = 3


@dataclass(frozen=True)
class ScoreSummary:
    """Scores of one exercise (or one assignment) over the students who attempted it."""

    key: str | int  # exercise id, or assignment id
    attempted: int
    mean_score: float | None
    first_try_share: float | None  # share of attempts whose first graded try was fully correct
    histogram: tuple[int, ...]  # students per score bin (see BIN_EDGES)


@dataclass(frozen=True)
class TagCount:
    """How many wrong answers to one exercise match one misconception tag."""

    tag: str
    count: int  # wrong submissions carrying the tag
    students: int
    share_of_wrong: float
    examples: tuple[str, ...]  # "field: what the student wrote", newest first


@dataclass(frozen=True)
class MisconceptionTable:
    """The misconception histogram of one exercise."""

    exercise_id: str
    wrong_answers: int
    tags: tuple[TagCount, ...]
    untagged: int = 0  # wrong answers with no tag on any part (one answer may carry several tags)


@dataclass(frozen=True)
class StudentProgress:
    """One enrolled student's standing over a set of assignments."""

    user_id: int
    username: str
    display_name: str
    attempted: int  # exercises with at least one graded attempt
    full_marks: int
    total: int  # exercises set
    score: float  # sum of counted scores / exercises set
    last_activity: datetime | None


def course_students(course_id: int) -> Select[tuple[int]]:
    """SELECT of the user ids enrolled as students in the course."""
    return select(Enrolment.user_id).where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)


def in_assignments(assignments: Sequence[Assignment]) -> ColumnElement[bool]:
    """SQL condition: the submission belongs to one of ``assignments`` and to an exercise it still sets."""
    conditions = [and_(Submission.assignment_id == a.id, Submission.exercise_id.in_(a.exercise_ids)) for a in assignments]
    return or_(*conditions) if conditions else false()


def graded_of_students(assignments: Sequence[Assignment], course_id: int) -> ColumnElement[bool]:
    """SQL condition: a graded submission of an enrolled student to ``assignments``."""
    return and_(
        Submission.status == SubmissionStatus.GRADED,
        in_assignments(assignments),
        Submission.user_id.in_(course_students(course_id)),
    )


def counted_scores(assignments: Sequence[Assignment], course_id: int) -> Subquery:
    """Per (assignment, student, exercise): graded attempts, first graded score, counted score, last graded time."""
    grouped = (
        select(
            Submission.assignment_id,
            Submission.user_id,
            Submission.exercise_id,
            func.count().label("attempts"),
            func.min(Submission.id).label("first_id"),
            func.max(Submission.id).label("last_id"),
            func.max(Submission.score).label("best"),
            func.max(Submission.created_at).label("last_at"),
        )
        .where(graded_of_students(assignments, course_id))
        .group_by(Submission.assignment_id, Submission.user_id, Submission.exercise_id)
        .subquery("grouped")
    )
    first, last = aliased(Submission, name="first_try"), aliased(Submission, name="last_try")
    best_policy = [a.id for a in assignments if a.score_policy == ScorePolicy.BEST]
    counted = case((grouped.c.assignment_id.in_(best_policy), grouped.c.best), else_=last.score)
    return (
        select(
            grouped.c.assignment_id,
            grouped.c.user_id,
            grouped.c.exercise_id,
            grouped.c.attempts,
            grouped.c.last_at,
            first.score.label("first_score"),
            counted.label("counted"),
        )
        .join(first, first.id == grouped.c.first_id)
        .join(last, last.id == grouped.c.last_id)
        .subquery("counted_scores")
    )


def score_bin(score: ColumnElement[Any]) -> ColumnElement[int]:
    """SQL: the histogram bin (0..BIN_COUNT-1) of a score; full marks get a bin of their own."""
    whens = [(score >= FULL_MARKS, BIN_COUNT - 1)]
    whens += [(score >= edge, index + 1) for index, edge in reversed(list(enumerate(BIN_EDGES)))]
    return case(*whens, else_=0)


def _histograms(session: Session, key: ColumnElement[Any], score: ColumnElement[Any]) -> dict[Any, tuple[int, ...]]:
    """Students per (key, score bin), from one GROUP BY over the selectable that ``key`` and ``score`` come from."""
    bins = score_bin(score).label("bin")
    counts: dict[Any, list[int]] = defaultdict(lambda: [0] * BIN_COUNT)
    for row_key, row_bin, n in session.execute(select(key, bins, func.count()).group_by(key, bins)):
        counts[row_key][int(row_bin)] = int(n)
    return {k: tuple(v) for k, v in counts.items()}


def _summaries(session: Session, keys: Sequence[str | int], summary_query: Select[Any],
               histograms: dict[Any, tuple[int, ...]]) -> list[ScoreSummary]:
    """ScoreSummary per key (in ``keys`` order; keys nobody attempted get zeros) from (key, n, mean, first share) rows."""
    found = {row[0]: row for row in session.execute(summary_query)}
    summaries = []
    for key in keys:
        row = found.get(key)
        summaries.append(ScoreSummary(
            key=key,
            attempted=int(row[1]) if row else 0,
            mean_score=float(row[2]) if row and row[2] is not None else None,
            first_try_share=float(row[3]) if row and row[3] is not None else None,
            histogram=histograms.get(key, (0,) * BIN_COUNT),
        ))
    return summaries


def exercise_stats(session: Session, assignment: Assignment) -> list[ScoreSummary]:
    """Per exercise of ``assignment``: students attempted, mean counted score, first-try share, histogram."""
    per = counted_scores([assignment], assignment.course_id)
    first_correct = case((per.c.first_score >= FULL_MARKS, 1.0), else_=0.0)
    query = select(per.c.exercise_id, func.count(), func.avg(per.c.counted), func.avg(first_correct)).group_by(
        per.c.exercise_id
    )
    histograms = _histograms(session, per.c.exercise_id, per.c.counted)
    return _summaries(session, assignment.exercise_ids, query, histograms)


def assignment_stats(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[ScoreSummary]:
    """Per assignment: students attempted, mean assignment score (missing exercises count 0), first-try share."""
    if not assignments:
        return []
    per = counted_scores(assignments, course_id)
    exercises_set = case({a.id: len(a.exercise_ids) for a in assignments}, value=per.c.assignment_id)
    per_student = (
        select(
            per.c.assignment_id,
            (func.sum(per.c.counted) / cast(exercises_set, Float)).label("score"),
            func.count().label("pairs"),
            func.sum(case((per.c.first_score >= FULL_MARKS, 1), else_=0)).label("firsts"),
        )
        .group_by(per.c.assignment_id, per.c.user_id)
        .subquery("per_student")
    )
    query = select(
        per_student.c.assignment_id,
        func.count(),
        func.avg(per_student.c.score),
        func.sum(per_student.c.firsts) / cast(func.sum(per_student.c.pairs), Float),
    ).group_by(per_student.c.assignment_id)
    histograms = _histograms(session, per_student.c.assignment_id, per_student.c.score)
    return _summaries(session, [a.id for a in assignments], query, histograms)


def _json_text(dialect: str, document: ColumnElement[Any], key: str) -> ColumnElement[Any]:
    """SQL: the text of ``document[key]`` (a JSON object column) on SQLite or PostgreSQL."""
    if dialect == "postgresql":
        return document.op("->>")(key)
    return func.json_extract(document, f"$.{key}")


def _tagged_parts(dialect: str) -> tuple[Any, Any]:
    """Table-valued joins: every part of a submission, and every tag of that part (SQLite json_each / PG json)."""
    source: Any = Submission.parts
    if dialect == "postgresql":
        # json_each fails on anything but an object ("cannot deconstruct a scalar"): rows written by hand or by
        # old code may hold JSON null.
        source = case((func.json_typeof(Submission.parts) == "object", Submission.parts),
                      else_=cast(literal("{}"), Submission.parts.type))
    parts = func.json_each(source).table_valued("key", "value", joins_implicitly=True).alias("part")
    if dialect == "postgresql":
        tags = func.json_array_elements_text(parts.c.value.op("->")("tags"))
    else:
        tags = func.json_each(parts.c.value, "$.tags")
    return parts, tags.table_valued("value", joins_implicitly=True).alias("tag")


def misconceptions(session: Session, assignment: Assignment) -> list[MisconceptionTable]:
    """Per exercise: wrong graded answers and, per misconception tag, how many carry it and a few examples."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        # json_each has no row estimate, so the planner guesses 100 rows per call and JIT-compiles these queries:
        # compiling takes about a second, running them tens of milliseconds. Off for this transaction only.
        session.execute(text("SET LOCAL jit = off"))
    wrong = and_(graded_of_students([assignment], assignment.course_id), Submission.score < FULL_MARKS)
    wrong_counts = dict(
        session.execute(select(Submission.exercise_id, func.count()).where(wrong).group_by(Submission.exercise_id)).all()
    )
    parts, tags = _tagged_parts(dialect)
    tagged = select(Submission).join(parts, true()).join(tags, true()).where(wrong)
    counts = session.execute(
        tagged.with_only_columns(
            Submission.exercise_id, tags.c.value, func.count(Submission.id.distinct()), func.count(Submission.user_id.distinct())
        ).group_by(Submission.exercise_id, tags.c.value)
    ).all()
    tagged_answers = dict(session.execute(
        tagged.with_only_columns(Submission.exercise_id, func.count(Submission.id.distinct()))
        .group_by(Submission.exercise_id)
    ).all())
    examples = _examples(session, tagged, parts, tags, dialect)
    by_exercise: dict[str, list[TagCount]] = defaultdict(list)
    for exercise_id, tag, n, students in counts:
        by_exercise[exercise_id].append(TagCount(
            tag=tag, count=int(n), students=int(students), share_of_wrong=int(n) / wrong_counts[exercise_id],
            examples=tuple(examples.get((exercise_id, tag), ())),
        ))
    return [
        MisconceptionTable(e, int(wrong_counts.get(e, 0)), tuple(sorted(by_exercise[e], key=lambda t: (-t.count, t.tag))),
                           int(wrong_counts.get(e, 0)) - int(tagged_answers.get(e, 0)))
        for e in assignment.exercise_ids
    ]


def _examples(session: Session, tagged: Select[Any], parts: Any, tags: Any, dialect: str) -> dict[tuple[str, str], list[str]]:
    """Up to EXAMPLES_PER_TAG recent answers per (exercise, tag): the lowest-scoring tagged part of each submission."""
    part_score = cast(_json_text(dialect, parts.c.value, "score"), Float)
    rank = func.row_number().over(
        partition_by=(Submission.exercise_id, tags.c.value), order_by=(Submission.id.desc(), part_score, parts.c.key)
    )
    ranked = tagged.with_only_columns(
        Submission.id.label("submission_id"), Submission.exercise_id, tags.c.value.label("tag"),
        parts.c.key.label("field"), _json_text(dialect, parts.c.value, "read").label("read"), rank.label("rank"),
    ).subquery("ranked")
    limit = EXAMPLES_PER_TAG * 4  # one submission can carry a tag on several parts: fetch extra, keep one each
    rows = session.execute(select(ranked).where(ranked.c.rank <= limit).order_by(ranked.c.rank))
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    seen: set[tuple[str, str, int]] = set()
    for submission_id, exercise_id, tag, field, read, _rank in rows:
        key = (exercise_id, tag)
        if (exercise_id, tag, submission_id) in seen or len(examples[key]) >= EXAMPLES_PER_TAG:
            continue
        seen.add((exercise_id, tag, submission_id))
        examples[key].append(f"{field}: {read if read is not None else ''}")
    return examples


def student_progress(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[StudentProgress]:
    """Every enrolled student (none left out) with exercises attempted, full marks, score and last activity."""
    per = counted_scores(assignments, course_id)
    graded = (
        select(
            per.c.user_id,
            func.count().label("attempted"),
            func.sum(per.c.counted).label("points"),
            func.sum(case((per.c.counted >= FULL_MARKS, 1), else_=0)).label("full"),
        )
        .group_by(per.c.user_id)
        .subquery("graded")
    )
    activity = (
        select(Submission.user_id, func.max(Submission.created_at).label("last_at"))
        .where(in_assignments(assignments))
        .group_by(Submission.user_id)
        .subquery("activity")
    )
    rows = session.execute(
        select(User.id, User.username, User.display_name, graded.c.attempted, graded.c.points, graded.c.full,
               activity.c.last_at)
        .join(Enrolment, Enrolment.user_id == User.id)
        .outerjoin(graded, graded.c.user_id == User.id)
        .outerjoin(activity, activity.c.user_id == User.id)
        .where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)
        .order_by(User.display_name, User.username)
    ).all()
    total = sum(len(a.exercise_ids) for a in assignments)
    return [
        StudentProgress(user_id, username, display_name, int(attempted or 0), int(full or 0), total,
                        float(points or 0.0) / total if total else 0.0, last_at)
        for user_id, username, display_name, attempted, points, full, last_at in rows
    ]

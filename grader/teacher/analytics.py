"""Aggregate statistics for the teacher dashboard: a few GROUP BY queries per view, never one query per student.

Only graded submissions of the course's enrolled students count; a student's score on an exercise is the
assignment's counted score (best or last graded attempt), as students see it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    CompoundSelect,
    Float,
    Integer,
    Select,
    String,
    Subquery,
    and_,
    case,
    cast,
    false,
    func,
    literal,
    null,
    or_,
    select,
    true,
    type_coerce,
    union_all,
)
from sqlalchemy.orm import Session, aliased

from exercises import api as engine
from grader import sql_dialects
from grader.models import Assignment, Enrolment, EnrolmentRole, ScorePolicy, Submission, SubmissionStatus, User
from grader.percent import FULL_MARKS

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

    def in_words(self, langs: Sequence[str]) -> MisconceptionTable:
        """The table with each tag's examples replaced by what the tag means the student answered, in ``langs``,
        where the engine says it in words (a concept check's stored letters follow each student's own shuffled
        order, so quoting them tells a teacher nothing); other tags keep their stored examples."""
        tags = []
        for tag in self.tags:
            words = [engine.misconception_example(self.exercise_id, tag.tag, lang) for lang in langs]
            said = tuple(example for example in words if example is not None)
            tags.append(replace(tag, examples=said) if said else tag)
        return replace(self, tags=tuple(tags))


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


def course_students(course_id: int) -> Select[int]:
    """SELECT of the user ids enrolled as students in the course."""
    return select(Enrolment.user_id).where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)


def in_assignments(assignments: Sequence[Assignment]) -> ColumnElement[bool]:
    """SQL condition: the submission belongs to one of ``assignments`` and to an exercise it still sets."""
    conditions = [
        and_(Submission.assignment_id == a.id, Submission.exercise_id.in_(a.exercise_ids)) for a in assignments
    ]
    return or_(*conditions) if conditions else false()


def graded_of_students(assignments: Sequence[Assignment], course_id: int) -> ColumnElement[bool]:
    """SQL condition: a graded submission of an enrolled student to ``assignments``."""
    return and_(
        Submission.status == SubmissionStatus.GRADED,
        in_assignments(assignments),
        Submission.user_id.in_(course_students(course_id)),
    )


def counted_scores(assignments: Sequence[Assignment], course_id: int, dialect: str) -> Subquery:
    """Per (assignment, student, exercise): graded attempts, first graded score, counted score, last graded time.

    First and last attempts: joined back to ``submissions`` by id, PostgreSQL hashed the whole table (every course's
    rows) twice per query, so it takes them from window functions over the course's own rows; SQLite looks each up
    by primary key, which there is about twice as fast as the windows' sort.
    """
    keys = (Submission.assignment_id, Submission.user_id, Submission.exercise_id)
    if sql_dialects.ranks_by_window(dialect):
        position = func.row_number().over(partition_by=keys, order_by=Submission.id)
        rows = (
            select(
                *keys,
                Submission.score,
                Submission.created_at,
                position.label("position"),
                func.count().over(partition_by=keys).label("of"),
            )
            .where(graded_of_students(assignments, course_id))
            .subquery("ranked")
        )
        first_score: ColumnElement[Any] = func.max(case((rows.c.position == 1, rows.c.score)))
        last_score: ColumnElement[Any] = func.max(case((rows.c.position == rows.c.of, rows.c.score)))
        per_key = select(
            rows.c.assignment_id,
            rows.c.user_id,
            rows.c.exercise_id,
            func.count().label("attempts"),
            func.max(rows.c.created_at).label("last_at"),
            first_score.label("first_score"),
            last_score.label("last_score"),
            func.max(rows.c.score).label("best"),
        )
        grouped = per_key.group_by(rows.c.assignment_id, rows.c.user_id, rows.c.exercise_id).subquery("grouped")
        first_score, last_score = grouped.c.first_score, grouped.c.last_score
    else:
        grouped = (
            select(
                *keys,
                func.count().label("attempts"),
                func.max(Submission.created_at).label("last_at"),
                func.min(Submission.id).label("first_id"),
                func.max(Submission.id).label("last_id"),
                func.max(Submission.score).label("best"),
            )
            .where(graded_of_students(assignments, course_id))
            .group_by(*keys)
            .subquery("grouped")
        )
        first, last = aliased(Submission, name="first_try"), aliased(Submission, name="last_try")
        first_score = select(first.score).where(first.id == grouped.c.first_id).scalar_subquery()
        last_score = select(last.score).where(last.id == grouped.c.last_id).scalar_subquery()
    best_policy = [a.id for a in assignments if a.score_policy == ScorePolicy.BEST]
    counted = case((grouped.c.assignment_id.in_(best_policy), grouped.c.best), else_=last_score)
    return select(
        grouped.c.assignment_id,
        grouped.c.user_id,
        grouped.c.exercise_id,
        grouped.c.attempts,
        grouped.c.last_at,
        first_score.label("first_score"),
        counted.label("counted"),
    ).subquery("counted_scores")


def score_bin(score: ColumnElement[Any]) -> ColumnElement[int]:
    """SQL: the histogram bin (0..BIN_COUNT-1) of a score; full marks get a bin of their own.

    The other edges compare the whole percentage the pages show (``percent.shown_percent``), not the raw value: a
    mean such as (1.0 + 0.2) / 3 is 0.39999999999999997 in floating point, shown as 40 %, and must count in 40–59 %.
    """
    shown = func.round(score * 100)
    whens = [(score >= FULL_MARKS, BIN_COUNT - 1)]
    whens += [(shown >= round(edge * 100), index + 1) for index, edge in reversed(list(enumerate(BIN_EDGES)))]
    return case(*whens, else_=0)


def _summaries(
    session: Session,
    keys: Sequence[str | int],
    key: ColumnElement[Any],
    score: ColumnElement[Any],
    first_share: ColumnElement[Any],
) -> list[ScoreSummary]:
    """ScoreSummary per key (in ``keys`` order; keys nobody attempted get zeros) from one GROUP BY ``key``.

    Counts, mean, first-try share and the histogram's bins come from the same pass, so the counted scores behind
    them are worked out once per summary instead of once for the figures and again for the histogram.
    """
    bins = score_bin(score)
    per_bin = [func.sum(case((bins == index, 1), else_=0)) for index in range(BIN_COUNT)]
    query = select(key, func.count(), func.avg(score), first_share, *per_bin).group_by(key)
    found = {row[0]: row for row in session.execute(query)}
    summaries = []
    for wanted in keys:
        row = found.get(wanted)
        summaries.append(
            ScoreSummary(
                key=wanted,
                attempted=int(row[1]) if row else 0,
                mean_score=float(row[2]) if row and row[2] is not None else None,
                first_try_share=float(row[3]) if row and row[3] is not None else None,
                histogram=tuple(int(n or 0) for n in row[4:]) if row else (0,) * BIN_COUNT,
            )
        )
    return summaries


def exercise_stats(session: Session, assignment: Assignment) -> list[ScoreSummary]:
    """Per exercise of ``assignment``: students attempted, mean counted score, first-try share, histogram."""
    per = counted_scores([assignment], assignment.course_id, sql_dialects.dialect_of(session))
    first_correct = case((per.c.first_score >= FULL_MARKS, 1.0), else_=0.0)
    return _summaries(session, assignment.exercise_ids, per.c.exercise_id, per.c.counted, func.avg(first_correct))


def assignment_stats(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[ScoreSummary]:
    """Per assignment: students attempted, mean assignment score (missing exercises count 0), first-try share."""
    if not assignments:
        return []
    per = counted_scores(assignments, course_id, sql_dialects.dialect_of(session))
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
    first_share = func.sum(per_student.c.firsts) / cast(func.sum(per_student.c.pairs), Float)
    return _summaries(
        session, [a.id for a in assignments], per_student.c.assignment_id, per_student.c.score, first_share
    )


def _json_text(document: ColumnElement[Any], key: str) -> ColumnElement[Any]:
    """SQL: the text of ``document[key]`` (a JSON object), by the JSON type's portable accessor."""
    text: ColumnElement[Any] = type_coerce(document, JSON)[key].as_string()
    return text


def _tagged_parts(dialect: str, document: ColumnElement[Any]) -> tuple[Any, Any]:
    """Table-valued joins: every part of ``document`` (a parts column), and every tag of that part."""
    parts = sql_dialects.json_object_items(dialect, document, Submission.parts.type).alias("part")
    return parts, sql_dialects.json_array_texts(dialect, parts.c.value, "tags").alias("tag")


def misconceptions(session: Session, assignment: Assignment) -> list[MisconceptionTable]:
    """Per exercise: wrong graded answers and, per misconception tag, how many carry it and a few examples."""
    dialect = sql_dialects.dialect_of(session)
    sql_dialects.plan_json_expansion_without_jit(session)
    wrong_counts: dict[str, int] = {}
    tagged_answers: dict[str, int] = {}
    counts: list[tuple[str, str, int, int]] = []
    examples: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)  # (rank, text)
    for kind, exercise_id, tag, n, students, field, read in session.execute(_misconception_query(assignment, dialect)):
        if kind == "wrong":
            wrong_counts[exercise_id] = int(n)
        elif kind == "tagged":
            tagged_answers[exercise_id] = int(n)
        elif kind == "tag":
            counts.append((exercise_id, tag, int(n), int(students)))
        else:  # an example; n is its rank, newest first
            examples[(exercise_id, tag)].append((int(n), f"{field}: {read if read is not None else ''}"))
    by_exercise: dict[str, list[TagCount]] = defaultdict(list)
    for exercise_id, tag, n, students in counts:
        by_exercise[exercise_id].append(
            TagCount(
                tag=tag,
                count=n,
                students=students,
                share_of_wrong=n / wrong_counts[exercise_id],
                examples=tuple(example for _rank, example in sorted(examples.get((exercise_id, tag), ()))),
            )
        )
    return [
        MisconceptionTable(
            e,
            wrong_counts.get(e, 0),
            tuple(sorted(by_exercise[e], key=lambda t: (-t.count, t.tag))),
            wrong_counts.get(e, 0) - tagged_answers.get(e, 0),
        )
        for e in assignment.exercise_ids
    ]


def _misconception_query(assignment: Assignment, dialect: str) -> CompoundSelect[*tuple[Any, ...]]:
    """One statement for the whole misconception table: (kind, exercise, tag, n, students, field, read) rows.

    Kinds: "wrong" (wrong answers per exercise), "tagged" (wrong answers with any tag), "tag" (answers and students
    per tag), "example" (n = rank). The parts' JSON is expanded once, into a CTE the other three read (PostgreSQL
    and SQLite materialise a CTE used more than once): expanded three times, it cost three passes over the JSON and,
    with json_each's row guesses, plans that scanned the whole table.
    """
    wrong = and_(graded_of_students([assignment], assignment.course_id), Submission.score < FULL_MARKS)
    # MATERIALIZED fences the plain scan of the wrong answers off from the JSON expansion: with json_each's guess of
    # 100 rows per call, PostgreSQL otherwise walked the whole table in id order to spare itself a sort.
    answers = (
        select(Submission.id, Submission.user_id, Submission.exercise_id, Submission.parts)
        .where(wrong)
        .cte("wrong_answers")
        .prefix_with("MATERIALIZED")
    )
    parts, tags = _tagged_parts(dialect, answers.c.parts)
    # Each (answer, tag) once, shown by its lowest-scoring tagged part (ties: the first field by name).
    choice = func.row_number().over(
        partition_by=(answers.c.id, tags.c.value),
        order_by=(cast(_json_text(parts.c.value, "score"), Float), parts.c.key),
    )
    expanded = (
        select(
            answers.c.id.label("submission_id"),
            answers.c.user_id,
            answers.c.exercise_id,
            tags.c.value.label("tag"),
            parts.c.key.label("field"),
            _json_text(parts.c.value, "read").label("read"),
            choice.label("choice"),
        )
        .select_from(answers)
        .join(parts, true())
        .join(tags, true())
        .subquery("expanded")
    )
    per_tag = select(expanded).where(expanded.c.choice == 1).cte("per_tag")
    no_text, no_number = cast(null(), String), cast(null(), Integer)
    newest = func.row_number().over(
        partition_by=(per_tag.c.exercise_id, per_tag.c.tag), order_by=per_tag.c.submission_id.desc()
    )
    ranked = select(
        per_tag.c.exercise_id, per_tag.c.tag, per_tag.c.field, per_tag.c.read, newest.label("rank")
    ).subquery("ranked")
    return union_all(
        select(literal("wrong"), answers.c.exercise_id, no_text, func.count(), no_number, no_text, no_text).group_by(
            answers.c.exercise_id
        ),
        select(
            literal("tagged"),
            per_tag.c.exercise_id,
            no_text,
            func.count(per_tag.c.submission_id.distinct()),
            no_number,
            no_text,
            no_text,
        ).group_by(per_tag.c.exercise_id),
        select(
            literal("tag"),
            per_tag.c.exercise_id,
            per_tag.c.tag,
            func.count(),
            func.count(per_tag.c.user_id.distinct()),
            no_text,
            no_text,
        ).group_by(per_tag.c.exercise_id, per_tag.c.tag),
        select(
            literal("example"),
            ranked.c.exercise_id,
            ranked.c.tag,
            ranked.c.rank,
            no_number,
            ranked.c.field,
            ranked.c.read,
        ).where(ranked.c.rank <= EXAMPLES_PER_TAG),
    )


def student_progress(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[StudentProgress]:
    """Every enrolled student (none left out) with exercises attempted, full marks, score and last activity."""
    per = counted_scores(assignments, course_id, sql_dialects.dialect_of(session))
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
        select(
            User.id,
            User.username,
            User.display_name,
            graded.c.attempted,
            graded.c.points,
            graded.c.full,
            activity.c.last_at,
        )
        .join(Enrolment, Enrolment.user_id == User.id)
        .outerjoin(graded, graded.c.user_id == User.id)
        .outerjoin(activity, activity.c.user_id == User.id)
        .where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)
        .order_by(User.display_name, User.username)
    ).all()
    total = sum(len(a.exercise_ids) for a in assignments)
    return [
        StudentProgress(
            user_id,
            username,
            display_name,
            int(attempted or 0),
            int(full or 0),
            total,
            float(points or 0.0) / total if total else 0.0,
            last_at,
        )
        for user_id, username, display_name, attempted, points, full, last_at in rows
    ]

"""The misconception table as the dashboard computed it before migration 0024: one statement expanding every wrong
graded answer's parts JSON and tags at read time. Kept here only as the reference the kept rows are checked
against (tests/teacher/test_misconception_counts.py)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    CompoundSelect,
    Float,
    Integer,
    String,
    and_,
    cast,
    func,
    literal,
    null,
    select,
    true,
    type_coerce,
    union_all,
)
from sqlalchemy.orm import Session

from grader import sql_dialects
from grader.models import Assignment, Submission
from grader.percent import FULL_MARKS
from grader.teacher.analytics import EXAMPLES_PER_TAG, MisconceptionTable, TagCount, graded_of_students


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

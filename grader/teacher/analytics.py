"""The assignment dashboard's misconception tables, read from the kept misconception counts and answer tags (kept
by triggers from the wrong answers' parts, ``grader.models.misconception_counts``), and
the SQL conditions on a course's submissions that the exports share. Scores and the student tables come from the
progress rows (``grader.teacher.progress_stats``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import ColumnElement, Select, and_, false, func, or_, select, union_all
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import sql_dialects
from grader.models import (
    AnswerTag,
    Assignment,
    Enrolment,
    EnrolmentRole,
    MisconceptionCount,
    MisconceptionTagCount,
    Submission,
    SubmissionStatus,
)

EXAMPLES_PER_TAG = 3


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


def misconceptions(session: Session, assignment: Assignment) -> list[MisconceptionTable]:
    """Per exercise: wrong graded answers and, per misconception tag, how many carry it and a few examples; from the
    kept counts (``grader.models.MisconceptionCount``, ``MisconceptionTagCount``) and the newest few kept tags, so
    that the table costs what it shows, not what the course holds."""
    exercises = list(assignment.exercise_ids)
    wrong_counts: dict[str, int] = {}
    tagged_answers: dict[str, int] = {}
    for exercise_id, wrong, tagged in session.execute(
        select(MisconceptionCount.exercise_id, func.sum(MisconceptionCount.wrong), func.sum(MisconceptionCount.tagged))
        .where(MisconceptionCount.assignment_id == assignment.id, MisconceptionCount.exercise_id.in_(exercises))
        .group_by(MisconceptionCount.exercise_id)
    ):
        if wrong:
            wrong_counts[exercise_id], tagged_answers[exercise_id] = int(wrong), int(tagged)
    per_tag = (
        select(
            MisconceptionTagCount.exercise_id,
            MisconceptionTagCount.tag,
            func.sum(MisconceptionTagCount.answers),
            func.sum(MisconceptionTagCount.students),
        )
        .where(MisconceptionTagCount.assignment_id == assignment.id, MisconceptionTagCount.exercise_id.in_(exercises))
        .group_by(MisconceptionTagCount.exercise_id, MisconceptionTagCount.tag)
    )
    counts = [(e, tag, int(n), int(students)) for e, tag, n, students in session.execute(per_tag) if n]
    examples = _examples(session, assignment, [(exercise_id, tag) for exercise_id, tag, _n, _s in counts])
    by_exercise: dict[str, list[TagCount]] = defaultdict(list)
    for exercise_id, tag, n, students in counts:
        by_exercise[exercise_id].append(
            TagCount(
                tag=tag,
                count=n,
                students=students,
                share_of_wrong=n / wrong_counts[exercise_id],
                examples=tuple(examples.get((exercise_id, tag), ())),
            )
        )
    return [
        MisconceptionTable(
            e,
            wrong_counts.get(e, 0),
            tuple(sorted(by_exercise[e], key=lambda t: (-t.count, t.tag))),
            wrong_counts.get(e, 0) - tagged_answers.get(e, 0),
        )
        for e in exercises
    ]


def _examples(
    session: Session, assignment: Assignment, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], list[str]]:
    """Per (exercise, tag) of ``keys``: "field: what the student wrote" of its newest ``EXAMPLES_PER_TAG`` answers
    by enrolled students, newest first. One statement: a few rows of index (assignment, exercise, tag, submission)
    per key, and the text from each of those submissions' parts."""
    if not keys:
        return {}
    students = course_students(assignment.course_id)
    limited = [
        select(AnswerTag.exercise_id, AnswerTag.tag, AnswerTag.submission_id, AnswerTag.field)
        .where(
            AnswerTag.assignment_id == assignment.id,
            AnswerTag.exercise_id == exercise_id,
            AnswerTag.tag == tag,
            AnswerTag.user_id.in_(students),
        )
        .order_by(AnswerTag.submission_id.desc())
        .limit(EXAMPLES_PER_TAG)
        .subquery()
        for exercise_id, tag in keys
    ]
    # Each limited SELECT in a subquery of its own: SQLite takes no LIMIT on a UNION's members.
    newest = union_all(*(select(*one.c) for one in limited)).subquery("newest")
    part = sql_dialects.json_object_items(
        sql_dialects.dialect_of(session), Submission.parts.expression, Submission.parts.type
    ).alias("part")
    read = select(sql_dialects.json_text(part.c.value, "read")).where(part.c.key == newest.c.field).scalar_subquery()
    found: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    query = select(newest.c.exercise_id, newest.c.tag, newest.c.submission_id, newest.c.field, read).join(
        Submission, Submission.id == newest.c.submission_id
    )
    for exercise_id, tag, submission_id, field, text in session.execute(query):
        found[(exercise_id, tag)].append((-submission_id, f"{field}: {text if text is not None else ''}"))
    return {key: [example for _order, example in sorted(rows)] for key, rows in found.items()}

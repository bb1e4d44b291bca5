"""The students' assignment sums (``grader.models.AssignmentProgress``) from their progress rows: what a rebuild of
the progress rows writes with them, and what ``grader check-progress`` compares the stored sums with.

A grade moves the sums in its own statement (``grader.grading.progress_write.sums_statement``, the same rule in
SQL); every other change of a counted score rebuilds the progress rows and, with them, the sums here. The kept
submission counts per assignment, exercise and final status (``grader.models.SubmissionCount``, kept by triggers)
are checked here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import Select, case, delete, func, insert, select
from sqlalchemy.orm import Session

from grader.models import FINAL_STATUSES, SHARDS, Assignment, AssignmentProgress, Submission, SubmissionCount
from grader.percent import FULL_MARKS


@dataclass(frozen=True)
class Sums:
    """One student's sums over their progress rows with a counted score on the exercises the assignment sets."""

    points: float = 0.0
    scored: int = 0
    pairs: int = 0
    firsts: int = 0


SUM_FIELDS = tuple(field.name for field in fields(Sums))


def sums_of(assignment: Assignment, rows: Mapping[tuple[int, str], Any]) -> dict[int, Sums]:
    """Per student, the sums of ``rows`` (Standing-like values keyed by (user id, exercise id)); students without
    a counted score on a set exercise are left out, as they have no stored row."""
    exercises = set(assignment.exercise_ids)
    found: dict[int, Sums] = {}
    for (user_id, exercise_id), row in sorted(rows.items()):
        if exercise_id not in exercises or row.score is None:
            continue
        was = found.get(user_id, Sums())
        found[user_id] = Sums(
            points=was.points + row.score,
            scored=was.scored + 1,
            pairs=was.pairs + (row.first_score is not None),
            firsts=was.firsts + (row.first_score is not None and row.first_score >= FULL_MARKS),
        )
    return found


def replace_sums(
    session: Session, assignment: Assignment, user_ids: Collection[int] | None, sums: Mapping[int, Sums]
) -> None:
    """Replace the stored sums of ``user_ids`` (None: every student) in the assignment by ``sums``, in
    ``session``'s transaction."""
    stale = delete(AssignmentProgress).where(AssignmentProgress.assignment_id == assignment.id)
    if user_ids is not None:
        stale = stale.where(AssignmentProgress.user_id.in_(list(user_ids)))
    session.execute(stale)
    rows = [{"assignment_id": assignment.id, "user_id": user_id, **vars(value)} for user_id, value in sums.items()]
    if rows:
        session.execute(insert(AssignmentProgress), rows)


def stored_sums(session: Session, assignment: Assignment) -> dict[int, Sums]:
    """The assignment's stored sums as they are."""
    return {
        row.user_id: Sums(**{name: getattr(row, name) for name in SUM_FIELDS})
        for row in session.scalars(select(AssignmentProgress).where(AssignmentProgress.assignment_id == assignment.id))
    }


def sum_differences(session: Session, assignment: Assignment, expected: Mapping[int, Sums]) -> Iterator[str]:
    """Each way the stored sums differ from ``expected``, as a line of text (points to the last few bits: a sum
    kept by adding differences may round apart from one added up afresh)."""
    yield from field_differences(
        lambda user_id: f"assignment {assignment.id} user {user_id} sums",
        expected,
        stored_sums(session, assignment),
        SUM_FIELDS,
        lambda stored, recomputed: math.isclose(stored, recomputed, rel_tol=1e-9, abs_tol=1e-9),
    )


def field_differences(
    where: Callable[[Any], str],
    expected: Mapping[Any, Any],
    found: Mapping[Any, Any],
    names: Sequence[str],
    same: Callable[[Any, Any], bool],
) -> Iterator[str]:
    """Each way the kept rows ``found`` differ from their recomputation ``expected`` (both by key), as a line of
    text: a row missing or not expected, or a field of ``names`` not ``same``; ``where`` names a key's row."""
    for key in sorted({*expected, *found}):
        want, have = expected.get(key), found.get(key)
        if want is None or have is None:
            yield f"{where(key)}: {'missing' if have is None else 'not expected'}"
            continue
        for name in names:
            stored, recomputed = getattr(have, name), getattr(want, name)
            if not same(stored, recomputed):
                yield f"{where(key)}: {name} stored {stored!r}, recomputed {recomputed!r}"


COUNT_FIELDS = ("submissions", *(status.value for status in FINAL_STATUSES))


def _fresh_counts() -> Select[*tuple[Any, ...]]:
    """SELECT (assignment id, exercise id, shard, submissions, then one count per final status) counted from the
    submissions, as the triggers keep them."""
    shard = Submission.user_id % SHARDS
    by_status = (func.sum(case((Submission.status == status.value, 1), else_=0)) for status in FINAL_STATUSES)
    return (
        select(Submission.assignment_id, Submission.exercise_id, shard, func.count(), *by_status)
        .where(Submission.assignment_id.is_not(None))
        .group_by(Submission.assignment_id, Submission.exercise_id, shard)
    )


def count_differences(session: Session) -> list[str]:
    """Each (assignment, exercise, shard) whose kept submission counts (``SubmissionCount``, kept by triggers)
    differ from a count of the submissions, as a line of text per count; a kept count of 0 is the same as none."""
    counted: dict[tuple[int, str, int], tuple[int, ...]] = {
        (assignment_id, exercise_id, part): tuple(int(n) for n in numbers)
        for assignment_id, exercise_id, part, *numbers in session.execute(_fresh_counts())
    }
    kept = {
        (row.assignment_id, row.exercise_id, row.shard): tuple(getattr(row, name) for name in COUNT_FIELDS)
        for row in session.scalars(select(SubmissionCount))
    }
    none = (0,) * len(COUNT_FIELDS)
    return [
        f"assignment {key[0]} exercise {key[1]} shard {key[2]}: {name} kept {have}, counted {want}"
        for key in sorted({*counted, *kept})
        for name, have, want in zip(COUNT_FIELDS, kept.get(key, none), counted.get(key, none), strict=True)
        if have != want
    ]


def recount(session: Session) -> None:
    """Replace every kept submission count by a fresh count, in ``session``'s transaction."""
    session.execute(delete(SubmissionCount))
    session.execute(
        insert(SubmissionCount).from_select(["assignment_id", "exercise_id", "shard", *COUNT_FIELDS], _fresh_counts())
    )

"""Progress rows (``grader.models.ProgressRow``): computed from the submissions with the gradebook's counting, kept
in the transaction of every change of a counted score, and checked against a recomputation.

A grade adds itself to its row with one statement (``grader.grading.progress_write``); every other change (a
regrade, an override, an extension, an edit of the assignment's policy, points or exercises) reaches
``rebuild`` through ``grader.grading.score_changes.counted_scores_changed``, which recomputes the rows of the
students it names from their submissions, and their assignment sums with them (``grader.grading.progress_sums``).
``differences`` is ``grader check-progress``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.orm import Session

from grader.grading import policy
from grader.grading.misconception_check import misconception_differences, refill
from grader.grading.overrides import overrides_of
from grader.grading.progress_sums import (
    count_differences,
    field_differences,
    recount,
    replace_sums,
    sum_differences,
    sums_of,
)
from grader.grading.score_stats import restat, stat_differences
from grader.grading.terms import StudentTerms, terms_of_students
from grader.models import (
    Assignment,
    AssignmentProgress,
    ProgressRow,
    ScoreOverride,
    ScorePolicy,
    Submission,
    SubmissionStatus,
)


@dataclass(frozen=True)
class Standing:
    """What a progress row holds (its key aside)."""

    attempts: int = 0
    first_score: float | None = None
    first_submission_id: int | None = None
    best_score: float | None = None
    last_score: float | None = None
    last_submission_id: int | None = None
    best_counted: float | None = None
    best_late: bool = False
    last_counted: float | None = None
    last_late: bool = False
    score: float | None = None
    late: bool = False
    overridden: bool = False
    last_activity: datetime | None = None


FIELDS = tuple(field.name for field in fields(Standing))
Key = tuple[int, str]  # (user id, exercise id)


def counted_value(terms: StudentTerms, assignment: Assignment, score: float, at: datetime) -> tuple[float, bool]:
    """One scored attempt's counted value and whether it was late, as the gradebook counts it: without late work
    (no late close) nothing is late and the engine score counts as it is."""
    if assignment.late_until is None:
        return score, False
    value = terms.counted(score, at)
    return (score if value is None else value), terms.lateness(at) is not None


def standing_of(
    assignment: Assignment, terms: StudentTerms, attempts: list[tuple[int, float | None, datetime]], override: Any
) -> Standing:
    """A row's values from one student's graded attempts (id, engine score, submitted at; in id order) on one
    exercise and the teacher's override (a ScoreOverride or None)."""
    scored = [(row_id, score, at) for row_id, score, at in attempts if score is not None]
    values = [counted_value(terms, assignment, score, at) for _, score, at in scored]
    best = max(values, key=lambda value: value[0]) if values else (None, False)
    last = values[-1] if values else (None, False)
    chosen = best if assignment.score_policy == ScorePolicy.BEST else last
    return Standing(
        attempts=len(attempts),
        first_score=attempts[0][1] if attempts else None,
        first_submission_id=attempts[0][0] if attempts else None,
        best_score=max((score for _, score, _ in scored), default=None),
        last_score=scored[-1][1] if scored else None,
        last_submission_id=scored[-1][0] if scored else None,
        best_counted=best[0],
        best_late=best[1],
        last_counted=last[0],
        last_late=last[1],
        score=chosen[0] if override is None else override.score,
        late=chosen[1],
        overridden=override is not None,
        last_activity=max((at for _, _, at in attempts), default=None),
    )


def recompute(session: Session, assignment: Assignment, user_ids: Collection[int] | None) -> dict[Key, Standing]:
    """The rows ``assignment`` should have for ``user_ids`` (None: everyone with a graded attempt or an override),
    from the submissions, the students' terms and the overrides. Pairs with neither have no row."""
    exercises = list(assignment.exercise_ids)
    query = (
        select(Submission.user_id, Submission.exercise_id, Submission.id, Submission.score, Submission.created_at)
        .where(
            Submission.assignment_id == assignment.id,
            Submission.status == SubmissionStatus.GRADED,
            Submission.exercise_id.in_(exercises),
        )
        .order_by(Submission.id)
    )
    if user_ids is not None:
        query = query.where(Submission.user_id.in_(list(user_ids)))
    graded: dict[Key, list[tuple[int, float | None, datetime]]] = {}
    for user_id, exercise_id, row_id, score, created_at in session.execute(query):
        graded.setdefault((user_id, exercise_id), []).append((row_id, score, created_at))
    corrected = {key: row for key, row in overrides_of(session, assignment, user_ids).items() if key[1] in exercises}
    students = {user_id for user_id, _ in (*graded, *corrected)}
    own_terms = terms_of_students(session, assignment, students)
    return {
        key: standing_of(assignment, own_terms[key[0]], graded.get(key, []), corrected.get(key))
        for key in sorted({*graded, *corrected})
    }


def rebuild(session: Session, assignment_id: int, user_ids: Collection[int] | None) -> None:
    """Replace the rows of ``user_ids`` (None: every student) in the assignment, and their assignment sums, by
    their recomputation, in ``session``'s transaction (the caller commits)."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None:
        return
    # The rows first: deleting them takes their locks, so a grade written meanwhile waits for this transaction.
    stale = delete(ProgressRow).where(ProgressRow.assignment_id == assignment_id)
    if user_ids is not None:
        stale = stale.where(ProgressRow.user_id.in_(list(user_ids)))
    session.execute(stale)
    recomputed = recompute(session, assignment, user_ids)
    rows = [
        {"assignment_id": assignment_id, "user_id": user_id, "exercise_id": exercise_id, **vars(standing)}
        for (user_id, exercise_id), standing in recomputed.items()
    ]
    if rows:
        session.execute(insert(ProgressRow), rows)
    replace_sums(session, assignment, user_ids, sums_of(assignment, recomputed))


def stored(session: Session, assignment: Assignment) -> dict[Key, Standing]:
    """The assignment's progress rows as they are."""
    return {
        (row.user_id, row.exercise_id): Standing(**{name: getattr(row, name) for name in FIELDS})
        for row in session.scalars(select(ProgressRow).where(ProgressRow.assignment_id == assignment.id))
    }


def _same(left: Any, right: Any) -> bool:
    """Equal, floats to the last few bits (a database may round a double differently on the way back)."""
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12)
    return bool(left == right)


def differences(session: Session, assignment: Assignment) -> Iterator[str]:
    """Each way the assignment's rows and its students' sums differ from their recomputation, and each counted
    score that differs from the gradebook's own counting (``grader.grading.policy.assignment_results``), as a line
    of text."""
    expected, found = recompute(session, assignment, None), stored(session, assignment)
    yield from field_differences(
        lambda key: f"assignment {assignment.id} user {key[0]} exercise {key[1]}", expected, found, FIELDS, _same
    )
    gradebook = policy.assignment_results(session, assignment, sorted({user_id for user_id, _ in expected}))
    for key, result in sorted(gradebook.items()):
        have = found.get(key, Standing())
        if not _same(have.score, result.score) or have.late != result.late or have.overridden != result.overridden:
            yield (
                f"assignment {assignment.id} user {key[0]} exercise {key[1]}: stored score {have.score!r}, "
                f"gradebook {result.score!r}"
            )
    yield from sum_differences(session, assignment, sums_of(assignment, expected))


def assignments_with_rows(session: Session) -> list[Assignment]:
    """Every assignment that has (or should have) progress rows, by id."""
    having = or_(
        Assignment.id.in_(select(Submission.assignment_id)),
        Assignment.id.in_(select(ProgressRow.assignment_id)),
        Assignment.id.in_(select(AssignmentProgress.assignment_id)),
        Assignment.id.in_(select(ScoreOverride.assignment_id)),
    )
    return list(session.scalars(select(Assignment).where(having).order_by(Assignment.id)))


def check_all(session: Session, *, repair: bool = False) -> list[str]:
    """Every difference between the stored rows (and sums) and their recomputation, over all assignments, between
    the kept score statistics and theirs, between the kept submission counts and a count, and between the kept
    misconception rows and their recomputation; with ``repair`` the assignments that differ are rebuilt, their
    statistics recomputed, the counts recounted and the misconception rows refilled (and committed)."""
    found: list[str] = []
    for assignment in assignments_with_rows(session):
        differing = list(differences(session, assignment))
        found += differing
        if differing and repair:
            rebuild(session, assignment.id, None)
    # Every assignment has kept statistics (zeros without a score), so every one is checked; after the rebuilds
    # above, since their triggers move them.
    for assignment in session.scalars(select(Assignment).order_by(Assignment.id)):
        misstated = list(stat_differences(session, assignment))
        found += misstated
        if misstated and repair:
            restat(session, assignment)
    miscounted = count_differences(session)
    found += miscounted
    if miscounted and repair:
        recount(session)
    mistagged = misconception_differences(session)
    found += mistagged
    if mistagged and repair:
        refill(session)
    if repair:
        session.commit()
    return found

"""Each student's own terms on an assignment: their due date and attempt limit, with any extension applied.

Every reader of a student's due date or attempt limit (submitting, answer keys, the student pages, progress and the
gradebook in the API, exports, the regrade's attempt check) asks here, so that an extension counts the same
everywhere. Granting and clearing extensions are here too, so their checks are one rule for the pages and the API.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from grader.grading.refusals import FieldRefused
from grader.grading.score_changes import counted_scores_changed
from grader.models import Assignment, Enrolment, EnrolmentRole, Extension
from grader.models.extensions import REASON_MAX

MAX_EXTRA_ATTEMPTS = 1000
# Up to this many students are named in the statement; for more (a whole MOOC course's file) the assignment's
# extensions, a few rows, are read whole: 5,000 bound ids cost more to send and parse than the rows they leave out.
NAMED_STUDENTS_MAX = 500
DAY = timedelta(days=1)


@dataclass(frozen=True)
class LatePolicy:
    """An assignment's rule for work after the due date: none (the default), or accepted until a hard close with a
    penalty on the counted score (percent per started day late, a cap on the late score, or both)."""

    close_after: timedelta | None = None  # how long after the due date late work is taken; None: no late work
    per_day: float = 0.0  # percent of the score taken off per started day late
    cap: float | None = None  # percent: a late score counts at most this much

    @property
    def accepts_late(self) -> bool:
        """True if work after the due date is taken at all."""
        return self.close_after is not None


@dataclass(frozen=True)
class Lateness:
    """How late one submission was, and what of its score counts."""

    days: int  # started days after the student's due date (1 for a minute late)
    factor: float  # the per-day penalty's multiplier
    cap: float | None  # the counted score's ceiling (0..1), if the policy caps late work

    def counted(self, score: float) -> float:
        """The counted value of an engine score of ``score`` handed in this late (the verdict itself is untouched)."""
        value = score * self.factor
        return value if self.cap is None else min(value, self.cap)

    @property
    def penalty_percent(self) -> float:
        """The per-day penalty taken off, in percent (the cap is shown apart)."""
        return round((1.0 - self.factor) * 100, 2)


@dataclass(frozen=True)
class StudentTerms:
    """What holds for one student on one assignment."""

    due_at: datetime | None  # None: no due date
    attempts_allowed: int | None  # per exercise; None: unlimited
    extended_due: bool = False  # the due date is the student's own, later than the assignment's
    extra_attempts: int = 0
    late: LatePolicy = LatePolicy()

    @property
    def closes_at(self) -> datetime | None:
        """When nothing more is taken: the due date, or the hard close of late work (moved with an extension)."""
        if self.due_at is None or self.late.close_after is None:
            return self.due_at
        return self.due_at + self.late.close_after

    @property
    def extended(self) -> bool:
        """True if the student has an extension of either kind."""
        return self.extended_due or self.extra_attempts > 0

    def past_due(self, now: datetime) -> bool:
        """True once the student's own due date has passed (late work may still be taken until ``closes_at``)."""
        return self.due_at is not None and now > self.due_at

    def closed(self, now: datetime) -> bool:
        """True once nothing more is taken from the student: after the due date, or after the late close."""
        closes = self.closes_at
        return closes is not None and now > closes

    def lateness(self, submitted_at: datetime) -> Lateness | None:
        """How late a submission made at ``submitted_at`` was; None if on time."""
        if self.due_at is None or submitted_at <= self.due_at:
            return None
        days = math.ceil((submitted_at - self.due_at) / DAY)
        factor = max(0.0, 1.0 - self.late.per_day * days / 100.0)
        return Lateness(days, factor, None if self.late.cap is None else self.late.cap / 100.0)

    def counted(self, score: float | None, submitted_at: datetime) -> float | None:
        """The counted value of one graded attempt's engine ``score``: the late penalty applied, if it was late."""
        late = self.lateness(submitted_at)
        return score if score is None or late is None else late.counted(score)


def late_policy(assignment: Assignment) -> LatePolicy:
    """The assignment's late policy as stored (none unless a late close is set and the due date is)."""
    if assignment.late_until is None or assignment.due_at is None:
        return LatePolicy()
    return LatePolicy(
        assignment.late_until - assignment.due_at, assignment.late_penalty_per_day or 0.0, assignment.late_cap
    )


def terms_from(assignment: Assignment, extension: Extension | None) -> StudentTerms:
    """The assignment's terms with ``extension`` (None: none) applied."""
    if extension is None:
        return StudentTerms(assignment.due_at, assignment.attempts_allowed, late=late_policy(assignment))
    extended_due = extension.due_at is not None and assignment.due_at is not None
    allowed = assignment.attempts_allowed
    return StudentTerms(
        due_at=extension.due_at if extended_due else assignment.due_at,
        attempts_allowed=None if allowed is None else allowed + extension.extra_attempts,
        extended_due=extended_due,
        extra_attempts=extension.extra_attempts if allowed is not None else 0,
        late=late_policy(assignment),
    )


def student_terms(session: Session, assignment: Assignment, user_id: int) -> StudentTerms:
    """The due date and attempt limit of user ``user_id`` on ``assignment``."""
    extension = session.scalar(
        select(Extension).where(Extension.assignment_id == assignment.id, Extension.user_id == user_id)
    )
    return terms_from(assignment, extension)


def terms_of_students(session: Session, assignment: Assignment, user_ids: Collection[int]) -> dict[int, StudentTerms]:
    """``student_terms`` for many students in one statement: every id in ``user_ids`` has an entry."""
    if not user_ids:
        return {}
    query = naming_few(select(Extension).where(Extension.assignment_id == assignment.id), Extension.user_id, user_ids)
    extensions = {extension.user_id: extension for extension in session.scalars(query)}
    # Students without an extension (nearly all) share the assignment's own terms.
    plain = terms_from(assignment, None)
    return {
        user_id: terms_from(assignment, extensions[user_id]) if user_id in extensions else plain for user_id in user_ids
    }


def naming_few(query: Select[Any], user_column: InstrumentedAttribute[int], user_ids: Collection[int]) -> Select[Any]:
    """``query`` narrowed to ``user_ids`` when there are at most NAMED_STUDENTS_MAX of them; unchanged for more (an
    assignment's rows read whole), so the caller keeps only the rows of the students it asked about."""
    return query.where(user_column.in_(list(user_ids))) if len(user_ids) <= NAMED_STUDENTS_MAX else query


def extensions_of(session: Session, assignment: Assignment) -> list[Extension]:
    """The assignment's extensions, by student id."""
    return list(
        session.scalars(select(Extension).where(Extension.assignment_id == assignment.id).order_by(Extension.user_id))
    )


class ExtensionRefused(FieldRefused):
    """An extension that cannot be given."""


def is_student_of(session: Session, assignment: Assignment, user_id: int) -> bool:
    """True if user ``user_id`` is enrolled as a student in the assignment's course."""
    return (
        session.scalar(
            select(Enrolment.id).where(
                Enrolment.course_id == assignment.course_id,
                Enrolment.user_id == user_id,
                Enrolment.role == EnrolmentRole.STUDENT,
            )
        )
        is not None
    )


@dataclass(frozen=True)
class ExtensionRequest:
    """What a teacher asks for one student: a later due date (None: keep the assignment's), extra attempts, why."""

    due_at: datetime | None
    extra_attempts: int
    reason: str = ""


def _check(session: Session, assignment: Assignment, user_id: int, wanted: ExtensionRequest) -> None:
    """Raise ExtensionRefused unless ``wanted`` can be given to user ``user_id`` on ``assignment``."""
    if not is_student_of(session, assignment, user_id):
        raise ExtensionRefused("student", "ext.err_student")
    if wanted.due_at is not None:
        if assignment.due_at is None:
            raise ExtensionRefused("due_at", "ext.err_no_due")
        if wanted.due_at <= assignment.due_at:
            raise ExtensionRefused("due_at", "ext.err_before_due")
    if not 0 <= wanted.extra_attempts <= MAX_EXTRA_ATTEMPTS:
        raise ExtensionRefused("extra_attempts", "ext.err_attempts")
    if wanted.extra_attempts and assignment.attempts_allowed is None:
        raise ExtensionRefused("extra_attempts", "ext.err_unlimited")
    if wanted.due_at is None and not wanted.extra_attempts:
        raise ExtensionRefused("due_at", "ext.err_nothing")
    if len(wanted.reason) > REASON_MAX:
        raise ExtensionRefused("reason", "ext.err_reason")


def grant_extension(
    session: Session, assignment: Assignment, user_id: int, wanted: ExtensionRequest, granted_by: int, now: datetime
) -> Extension:
    """Give (or replace) student ``user_id``'s extension on ``assignment``; ExtensionRefused changes nothing.

    Commits, with the counted-score notice in the same transaction (a later due date changes what counts as late).
    """
    _check(session, assignment, user_id, wanted)
    extension = session.scalar(
        select(Extension).where(Extension.assignment_id == assignment.id, Extension.user_id == user_id)
    )
    if extension is None:
        extension = Extension(assignment_id=assignment.id, user_id=user_id)
        session.add(extension)
    extension.due_at, extension.extra_attempts = wanted.due_at, wanted.extra_attempts
    extension.reason, extension.granted_by, extension.updated_at = wanted.reason, granted_by, now
    counted_scores_changed(session, assignment.id, [user_id], now)
    session.commit()
    return extension


def clear_extension(session: Session, assignment: Assignment, user_id: int, now: datetime) -> bool:
    """Remove student ``user_id``'s extension on ``assignment``; False if there was none. Commits."""
    extension = session.scalar(
        select(Extension).where(Extension.assignment_id == assignment.id, Extension.user_id == user_id)
    )
    if extension is None:
        return False
    session.delete(extension)
    counted_scores_changed(session, assignment.id, [user_id], now)
    session.commit()
    return True
